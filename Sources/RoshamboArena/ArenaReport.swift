import Foundation

/// An arena's result as lines of text no wider than the width given (80 columns by
/// default): the settings and the test's parameters, the win-rate matrix (in blocks of
/// columns when the bots do not fit in one), every pairing with its interval and verdict,
/// the ratings, and the speed.
///
/// Invariant: no line is wider than `width` (names are abbreviated to fit, never cut
/// mid-table).
public struct ArenaReport: Sendable {
  public var result: ArenaResult
  public var width: Int

  public init(_ result: ArenaResult, width: Int = 80) {
    self.result = result
    self.width = max(width, 60)
  }

  public var lines: [String] {
    var lines = wrap(introduction)
    lines += wrap(testDescription)
    lines.append("")
    lines += matrix()
    lines.append("")
    lines += pairings()
    lines.append("")
    lines += ratings()
    lines.append("")
    lines += wrap(decisions)
    lines += wrap(speed)
    return lines
  }

  /// The arena's settings in one sentence.
  var introduction: String {
    let settings = result.settings
    return "Arena: \(result.bots.count) bots, \(counted(result.pairings.count, "pairing")), "
      + "\(grouped(settings.roundsPerGame)) rounds a game, \(settings.games) "
      + (settings.games == 1 ? "game" : "games") + " in each seat order"
      + (settings.bestOf.map { " (matches best of \($0) back to back)" } ?? "")
      + ", seed \(settings.seed), on \(settings.server)."
  }

  /// The sequential test's parameters and Wald's estimates of the rounds it needs.
  var testDescription: String {
    let settings = result.settings
    let test = settings.test
    return "Each pairing is decided by a sequential test on its decisive rounds (draws left out): "
      + "two SPRTs of p = 0.5 against p = 0.5 ± \(decimal(test.margin, 3)), α = "
      + "\(decimal(test.alpha, 3)) for both sides together, β = \(decimal(test.beta, 3)); "
      + "a side is decided when its log-likelihood ratio reaches "
      + "\(decimal(test.upperBound, 2)), the pairing is even when both fall to "
      + "\(decimal(test.lowerBound, 2)). Wald's estimate: about "
      + "\(grouped(Int(test.expectedDecisiveRounds(at: 0.5).rounded()))) decisive rounds "
      + "to call an even pairing even, \(grouped(Int(test.expectedDecisiveRounds(at: 0.5 + test.margin).rounded()))) "
      + "to decide one at \(decimal(100 * (0.5 + test.margin), 1))%; a pairing stops at "
      + "\(grouped(2 * settings.games * settings.roundsPerGame)) rounds."
  }

  /// How many pairings were decided for a side, even, or left undecided.
  var decisions: String {
    let decided = result.pairings.filter { $0.verdict == .first || $0.verdict == .second }.count
    let even = result.pairings.filter { $0.verdict == .even }.count
    let open = result.pairings.count - decided - even
    return "Decided: \(decided) for a side, \(even) even, \(open) undecided at the round cap, of "
      + "\(counted(result.pairings.count, "pairing"))."
  }

  /// The rounds played and counted, how fast, and how long programs took to pick.
  var speed: String {
    var speed =
      "\(grouped(result.roundsPlayed)) rounds played (\(grouped(result.roundsCounted)) "
      + "counted) in \(decimal(result.seconds, 1)) s: \(grouped(Int(result.roundsPerSecond.rounded()))) rounds/s."
    if let picks = result.programPicks {
      speed +=
        " Programs' picks: \(grouped(picks.picks)), p50 \(decimal(picks.p50 / 1000, 2)) ms, "
        + "p99 \(decimal(picks.p99 / 1000, 2)) ms; a first pick, with the program's start: "
        + "p50 \(decimal(picks.firstP50 / 1000, 1)) ms over \(grouped(picks.starts)) processes."
    }
    return speed
  }

  public var text: String { lines.joined(separator: "\n") + "\n" }

  // MARK: - The matrix

  /// Column headings: each bot's name cut to 4 columns, made unique.
  var abbreviations: [String] { Self.abbreviate(result.bots, to: 4) }

  /// What a bot is called in the tables: its name, or for a program the last word of its
  /// command without folders or extension (`exec:python3 bots/copy.py` is `copy`).
  static func label(_ name: String) -> String {
    guard name.hasPrefix("exec:") else { return name }
    guard let last = name.dropFirst(5).split(separator: " ").last else { return "exec" }
    var base = String(last.split(separator: "/").last ?? last)
    if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
    return base.isEmpty ? "exec" : base
  }

  /// Labels cut to `width` characters, each unique: a name cut short keeps its trailing
  /// digits (`markov2`, `markov3` → `mar2`, `mar3`), and a clash gets the bot's number in
  /// its last places instead.
  static func abbreviate(_ names: [String], to width: Int) -> [String] {
    var taken = Set<String>()
    return names.enumerated().map { index, name in
      let plain = label(name).filter { !$0.isWhitespace }
      let digits = String(plain.reversed().prefix { $0.isNumber }.reversed())
      var short =
        plain.count > width && !digits.isEmpty && digits.count < width
        ? String(plain.prefix(width - digits.count)) + digits : String(plain.prefix(width))
      if short.isEmpty || taken.contains(short) {
        let number = String(index + 1)
        short = String(plain.prefix(max(0, width - number.count))) + number
      }
      taken.insert(short)
      return short
    }
  }

  func matrix() -> [String] {
    let bots = result.bots
    let rowNames = Self.abbreviate(bots, to: 10)
    let columns = abbreviations
    let cell = 5
    let perBlock = max(1, (width - 11) / cell)
    var lines = wrap(
      "Win rate (%) of the row's bot against the column's, of their decisive rounds:")
    for start in stride(from: 0, to: bots.count, by: perBlock) {
      let block = start..<min(bots.count, start + perBlock)
      if start > 0 { lines.append("") }
      lines.append(pad("", 11) + block.map { padLeft(columns[$0], cell) }.joined())
      for row in bots.indices {
        let cells = block.map { column -> String in
          if column == row { return padLeft("—", cell) }
          return
            padLeft(Self.wholePercent(result.winRate(row, against: column)), cell)
        }
        lines.append(pad(rowNames[row], 11) + cells.joined())
      }
    }
    if zip(bots, columns).contains(where: { !$0.hasPrefix($1) || $0.hasPrefix("exec:") }) {
      lines += wrap(
        "Columns: "
          + zip(columns, bots).map { "\($0) \($1)" }.joined(separator: ", ") + ".")
    }
    return lines
  }

  // MARK: - Pairings

  func pairings() -> [String] {
    let names = Self.abbreviate(result.bots, to: 9)
    var lines = wrap(
      "Pairings (W–L–D and the win rate are the first bot's; a verdict names the stronger "
        + "bot and the rounds it took):")
    lines.append("first     second    rounds  W–L–D              win%  95% interval  verdict")
    for pairing in result.pairings {
      let total = pairing.total
      let rate = pairing.winRate
      let verdict = pairing.verdict(naming: names)
      let decidedAt = pairing.decidedAt
      let wld = "\(total.firstWins)–\(total.secondWins)–\(total.draws)"
      let interval = Self.interval(rate)
      let line =
        pad(names[pairing.first], 10) + pad(names[pairing.second], 10)
        + padLeft(grouped(total.rounds), 6) + "  " + pad(wld, 17)
        + padLeft(Self.percent(rate), 5) + "  "
        + pad(interval, 12) + "  " + verdict + decidedAt
      lines.append(String(line.prefix(width)))
    }
    return lines
  }

  // MARK: - Ratings

  func ratings() -> [String] {
    let ratings = result.ratings
    var lines = wrap(
      "Ratings (Bradley–Terry on decisive rounds, Elo scale, centred on 0; ± is the 95% "
        + "interval from the Fisher information):")
    let names = Self.abbreviate(result.bots, to: 10)
    for (place, bot) in result.ranking.enumerated() {
      let full = result.bots[bot]
      let line =
        padLeft("\(place + 1).", 4) + " " + pad(names[bot], 11)
        + padLeft(Self.rating(ratings.elo[bot]), 6)
        + padLeft(Self.ratingInterval(ratings.eloErrors[bot]), 7)
        + (full == names[bot] ? "" : "  " + full)
      lines.append(String(line.prefix(width)))
    }
    return lines
  }

  // MARK: - Numbers, as every form of the report shows them

  /// A matrix cell: the win rate in whole percent, `·` when the pair had no decisive round.
  static func wholePercent(_ rate: WinRate?) -> String {
    guard let rate, rate.decisive > 0 else { return "·" }
    return String(Int((rate.rate * 100).rounded()))
  }

  /// A pairing's win rate in percent to one decimal, `—` without a decisive round.
  static func percent(_ rate: WinRate) -> String {
    rate.decisive == 0 ? "—" : decimal(100 * rate.rate, 1)
  }

  /// A pairing's 95% interval in percent (`48.1–56.4`), `—` without a decisive round.
  static func interval(_ rate: WinRate) -> String {
    rate.decisive == 0 ? "—" : "\(decimal(100 * rate.low, 1))–\(decimal(100 * rate.high, 1))"
  }

  /// A rating in whole Elo points, signed (`+12`, `-7`).
  static func rating(_ elo: Double) -> String {
    (elo >= 0 ? "+" : "") + String(Int(elo.rounded()))
  }

  /// A rating's 95% interval as its half-width in whole Elo points (`±34`), from its
  /// standard error.
  static func ratingInterval(_ eloError: Double) -> String {
    "±" + String(Int((WinRate.z95 * eloError).rounded()))
  }

  // MARK: - Text

  func wrap(_ text: String) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if line.isEmpty {
        line = String(word)
      } else if line.count + 1 + word.count <= width {
        line += " " + word
      } else {
        lines.append(line)
        line = String(word)
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }

  func pad(_ text: String, _ width: Int) -> String {
    let cut = String(text.prefix(width))
    return cut + String(repeating: " ", count: max(0, width - cut.count))
  }

  func padLeft(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}

/// 12345 as "12,345".
extension ArenaResult.Pairing {
  /// The verdict as the report and the page say it: the stronger bot, by its name in
  /// `names` (the bots' order), or "even", or "undecided".
  func verdict(naming names: [String]) -> String {
    switch verdict {
    case .first: names[first]
    case .second: names[second]
    case .even: "even"
    case .undecided: "undecided"
    }
  }

  /// " @N": the rounds the test took to decide (grouped), or nothing while undecided.
  var decidedAt: String {
    decidedAfterRounds.map { " @\(grouped($0))" } ?? ""
  }
}

func grouped(_ value: Int) -> String {
  let digits = String(abs(value))
  var out = ""
  for (index, digit) in digits.enumerated() {
    if index > 0, (digits.count - index) % 3 == 0 { out += "," }
    out.append(digit)
  }
  return (value < 0 ? "-" : "") + out
}

/// "1 pairing", "66 pairings": `count` grouped, with `noun` made plural past one.
func counted(_ count: Int, _ noun: String) -> String {
  "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")"
}

/// `value` with `places` decimals.
func decimal(_ value: Double, _ places: Int) -> String {
  String(format: "%.\(places)f", value)
}
