import Foundation

extension ArenaResult {
  /// The whole result as one HTML page to keep or send (`roshambo arena --html`): the
  /// win-rate matrix as a heat map, each pairing's win rate with its 95% interval and
  /// verdict, the ratings with their intervals as a chart, then the settings and the JSON
  /// of ``json`` itself. Figures are inline SVG and CSS, so the page is one file that needs
  /// nothing else and no script.
  ///
  /// Invariant: every text that came from outside (a bot's name, the server's address)
  /// is escaped wherever it appears, in a tag's text, an attribute or an SVG `<text>`; the
  /// page refers to no other file and runs no script (its Content-Security-Policy forbids
  /// both). Numbers are rounded as the text report rounds them, and each heat-map cell
  /// carries the JSON's own number in `data-rate`.
  public var html: String {
    ArenaPage(result: self).text
  }
}

/// The parts of ``ArenaResult/html``, written in order.
struct ArenaPage {
  var result: ArenaResult
  var report: ArenaReport
  /// What each bot is called in the figures: short and unique (its full name is in the
  /// bots' table and in each figure's tooltips).
  var labels: [String]

  init(result: ArenaResult) {
    self.result = result
    report = ArenaReport(result)
    labels = ArenaReport.abbreviate(result.bots, to: 16)
  }

  var text: String {
    """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="\(Self.policy)">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Roshambo arena: \(escaped(labels.joined(separator: ", ")))</title>
    <style>
    \(Self.style)
    </style>
    </head>
    <body>
    <header>
    <h1>Roshambo arena</h1>
    <p>\(escaped(report.introduction))</p>
    </header>
    <div class="side-by-side">
    \(heatMap)
    \(ratings)
    </div>
    \(pairings)
    \(bots)
    <section id="about">
    <h2>The test and the run</h2>
    <p>\(escaped(report.testDescription))</p>
    <p id="decisions">\(escaped(report.decisions))</p>
    <p id="speed">\(escaped(report.speed))</p>
    <details>
    <summary>The result as JSON (what <code>--json</code> writes)</summary>
    <pre id="json">\(escaped(result.json))</pre>
    </details>
    </section>
    </body>
    </html>

    """
  }

  /// Nothing is loaded or run: no script at all (inline or from elsewhere), no image,
  /// font, frame or connection; only the page's own style.
  static let policy =
    "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
    + "form-action 'none'"

  static let style = """
    :root { --ink: #1b2430; --muted: #5d6b7a; --line: #d5dce4; --point: #1b2430;
      --bar: #3d6fa8; --zone: #eef1f5; }
    * { box-sizing: border-box; }
    body { margin: 0 auto; max-width: 1200px; padding: 1em 1.5em 3em; color: var(--ink);
      font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    h1 { margin: 0 0 0.3em; font-size: 1.6em; }
    h2 { margin: 1.6em 0 0.4em; font-size: 1.15em; }
    .side-by-side { display: flex; flex-wrap: wrap; column-gap: 3em; align-items: flex-start; }
    .side-by-side > section { flex: 0 1 auto; min-width: 0; max-width: 100%; }
    .side-by-side p { max-width: 40em; }
    #matrix p { max-width: 24em; }
    p { margin: 0.3em 0; max-width: 60em; }
    .muted { color: var(--muted); }
    table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
    th, td { padding: 0.2em 0.5em; text-align: left; }
    th { font-weight: 600; }
    .num { text-align: right; }
    .heat td, .heat th { width: 3.4em; height: 2.4em; text-align: center; padding: 0; }
    .heat th.row { text-align: right; padding-right: 0.6em; width: auto; white-space: nowrap; }
    .heat th.column { vertical-align: bottom; font-size: 0.85em; padding-bottom: 0.3em; }
    .heat th.column span { writing-mode: vertical-rl; transform: rotate(180deg);
      white-space: nowrap; }
    .heat td { border: 2px solid #fff; font-weight: 600; }
    .heat td.self { color: var(--muted); background: #fafbfc; font-weight: 400; }
    .legend { display: flex; align-items: center; gap: 0.6em; margin: 0.5em 0 0;
      font-size: 0.85em; color: var(--muted); }
    .pairings td, .pairings th { border-bottom: 1px solid var(--line); white-space: nowrap; }
    .pairings .chart { padding: 0; }
    .pairings .verdict-even, .pairings .verdict-undecided { color: var(--muted); }
    .pairings .verdict-first, .pairings .verdict-second { font-weight: 600; }
    .bots td, .bots th { border-bottom: 1px solid var(--line); }
    .bots td.name { font-family: ui-monospace, Menlo, Consolas, monospace;
      overflow-wrap: anywhere; }
    svg { display: block; }
    svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
      fill: var(--ink); }
    svg .axis { stroke: var(--line); }
    svg .tick { fill: var(--muted); }
    svg .zone { fill: var(--zone); }
    svg .centre { stroke: #9aa7b5; stroke-dasharray: 3 3; }
    svg .bar { stroke: var(--bar); stroke-width: 2; }
    svg .point { fill: var(--point); }
    figure { margin: 0.6em 0; overflow-x: auto; }
    figcaption { font-size: 0.85em; color: var(--muted); margin-top: 0.3em; }
    pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.8em;
      background: #f6f8fa; padding: 0.8em; }
    """

  // MARK: - The heat map

  /// One cell per ordered pair of bots: the row's win rate against the column's, coloured
  /// from red (0%) through white (50%) to blue (100%).
  var heatMap: String {
    let bots = result.bots
    var rows = "<tr><th></th>"
    for column in bots.indices {
      rows +=
        "<th class=\"column\" scope=\"col\" title=\"\(escaped(bots[column]))\">"
        + "<span>\(escaped(labels[column]))</span></th>"
    }
    rows += "</tr>\n"
    for row in bots.indices {
      rows +=
        "<tr><th class=\"row\" scope=\"row\" title=\"\(escaped(bots[row]))\">"
        + "\(escaped(labels[row]))</th>"
      for column in bots.indices {
        guard column != row else {
          rows += "<td class=\"self\">—</td>"
          continue
        }
        let rate = result.winRate(row, against: column)
        let decisive = rate?.decisive ?? 0
        let tooltip =
          "\(labels[row]) against \(labels[column]): "
          + (decisive == 0
            ? "no decisive round"
            : "\(ArenaReport.percent(rate!))% of \(grouped(decisive)) decisive rounds, 95% "
              + "interval \(ArenaReport.interval(rate!))%")
        let colour = decisive == 0 ? "#f1f3f5" : Self.heatColour(rate!.rate)
        let ink = decisive > 0 && abs(rate!.rate - 0.5) > 0.3 ? "#fff" : "#1b2430"
        rows +=
          "<td class=\"rate\" data-row=\"\(row)\" data-column=\"\(column)\" "
          + "data-rate=\"\(ArenaJSONWriter.numberText(rate?.rate))\" "
          + "data-decisive=\"\(decisive)\" style=\"background:\(colour);color:\(ink)\" "
          + "title=\"\(escaped(tooltip))\">\(ArenaReport.wholePercent(rate))</td>"
      }
      rows += "</tr>\n"
    }
    return """
      <section id="matrix">
      <h2>Win rates</h2>
      <p class="muted">The row's bot against the column's: its share (%) of their decisive \
      rounds, draws left out. <span>·</span> marks a pair without a decisive round.</p>
      <figure>
      <table class="heat" id="heat-map">
      \(rows)</table>
      <div class="legend"><span>0%</span>\(Self.legend)<span>100%</span></div>
      </figure>
      </section>
      """
  }

  /// The heat map's colour scale as a bar.
  static var legend: String {
    let stops = stride(from: 0.0, through: 1.0, by: 0.25).map {
      "<stop offset=\"\($0)\" stop-color=\"\(heatColour($0))\"/>"
    }
    return "<svg width=\"200\" height=\"12\" viewBox=\"0 0 200 12\" role=\"img\" "
      + "aria-label=\"the colour scale\"><defs><linearGradient id=\"scale\">"
      + stops.joined() + "</linearGradient></defs>"
      + "<rect width=\"200\" height=\"12\" fill=\"url(#scale)\"/></svg>"
  }

  /// A win rate's colour: red below one half, blue above, white at it.
  static func heatColour(_ rate: Double) -> String {
    let white = (247.0, 247.0, 247.0)
    let red = (178.0, 24.0, 43.0)
    let blue = (33.0, 102.0, 172.0)
    let p = min(1, max(0, rate))
    let (far, share) = p < 0.5 ? (red, (0.5 - p) * 2) : (blue, (p - 0.5) * 2)
    func mix(_ a: Double, _ b: Double) -> Int { Int((a + (b - a) * share).rounded()) }
    let channels = [mix(white.0, far.0), mix(white.1, far.1), mix(white.2, far.2)]
    return "#" + channels.map { String(format: "%02x", $0) }.joined()
  }

  // MARK: - The pairings

  /// A table of the pairings in the schedule's order, each with its interval drawn on a
  /// 0–100% axis shared by every row (the shaded band is the test's margin about 50%).
  var pairings: String {
    let margin = result.settings.test.margin
    let axis = IntervalAxis(low: 0, high: 1, width: 260, inset: 16)
    var rows = ""
    for pairing in result.pairings {
      let total = pairing.total
      let rate = pairing.winRate
      let verdict = pairing.verdict(naming: labels)
      let decidedAt = pairing.decidedAt
      var chart =
        "<svg width=\"\(axis.width)\" height=\"20\" viewBox=\"0 0 \(axis.width) 20\" "
        + "role=\"img\" aria-label=\"\(escaped(ArenaReport.percent(rate)))%\">"
        + axis.band(0.5 - margin, 0.5 + margin, height: 20)
        + axis.centre(0.5, height: 20)
      if rate.decisive > 0 {
        chart +=
          "<title>\(escaped("\(ArenaReport.percent(rate))%, 95% interval \(ArenaReport.interval(rate))%"))</title>"
          + axis.interval(low: rate.low, value: rate.rate, high: rate.high, y: 10)
      }
      chart += "</svg>"
      rows +=
        "<tr data-first=\"\(pairing.first)\" data-second=\"\(pairing.second)\" "
        + "data-verdict=\"\(pairing.verdict.rawValue)\">"
        + "<td title=\"\(escaped(result.bots[pairing.first]))\">\(escaped(labels[pairing.first]))</td>"
        + "<td title=\"\(escaped(result.bots[pairing.second]))\">\(escaped(labels[pairing.second]))</td>"
        + "<td class=\"num\">\(grouped(total.rounds))</td>"
        + "<td class=\"num\">\(total.firstWins)–\(total.secondWins)–\(total.draws)</td>"
        + "<td class=\"num rate\">\(ArenaReport.percent(rate))</td>"
        + "<td class=\"num interval\">\(ArenaReport.interval(rate))</td>"
        + "<td class=\"chart\">\(chart)</td>"
        + "<td class=\"verdict verdict-\(pairing.verdict.rawValue)\">"
        + "\(escaped(verdict + decidedAt))</td></tr>\n"
    }
    let ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
    let scale =
      "<svg width=\"\(axis.width)\" height=\"16\" viewBox=\"0 0 \(axis.width) 16\" "
      + "aria-hidden=\"true\">"
      + ticks.map { axis.tickLabel("\(Int($0 * 100))%", at: $0, y: 12) }.joined() + "</svg>"
    return """
      <section id="pairings">
      <h2>Pairings</h2>
      <p class="muted">W–L–D and the win rate are the first bot's; the point is its win \
      rate, the bar its 95% interval, the shaded band 50% ± the test's margin. A verdict \
      names the stronger bot and the rounds it took.</p>
      <figure>
      <table class="pairings">
      <tr><th>first</th><th>second</th><th class="num">rounds</th><th class="num">W–L–D</th>\
      <th class="num">win%</th><th class="num">95% interval</th><th class="chart">\(scale)</th>\
      <th>verdict</th></tr>
      \(rows)</table>
      </figure>
      </section>
      """
  }

  // MARK: - The ratings

  /// The ratings from the highest down as points with their 95% intervals, on one Elo
  /// axis centred on 0.
  var ratings: String {
    let ratings = result.ratings
    let ranking = result.ranking
    let lows = result.bots.indices.map { ratings.elo[$0] - WinRate.z95 * ratings.eloErrors[$0] }
    let highs = result.bots.indices.map {
      ratings.elo[$0] + WinRate.z95 * ratings.eloErrors[$0]
    }
    let step = IntervalAxis.tickStep(
      span: (highs.max() ?? 1) - (lows.min() ?? -1), most: 5)
    let low = (min(lows.min() ?? 0, 0) / step).rounded(.down) * step
    let high = (max(highs.max() ?? 0, 0) / step).rounded(.up) * step
    let labelWidth = 150
    let chartWidth = 360
    let numbersWidth = 110
    let width = labelWidth + chartWidth + numbersWidth
    let axis = IntervalAxis(
      low: low, high: high == low ? low + step : high, width: chartWidth, inset: 8,
      left: labelWidth)
    let rowHeight = 24
    let top = 22
    let height = top + rowHeight * ranking.count + 8
    var svg =
      "<svg id=\"ratings-chart\" width=\"\(width)\" height=\"\(height)\" "
      + "viewBox=\"0 0 \(width) \(height)\" role=\"img\" "
      + "aria-label=\"Bradley–Terry ratings with their 95% intervals\">"
    for tick in stride(from: axis.low, through: axis.high + step / 2, by: step) {
      svg +=
        axis.tickLabel(tick == 0 ? "0" : ArenaReport.rating(tick), at: tick, y: 12)
        + "<line class=\"axis\" x1=\"\(axis.x(tick))\" x2=\"\(axis.x(tick))\" y1=\"16\" "
        + "y2=\"\(height - 4)\"/>"
    }
    svg +=
      "<line class=\"centre\" x1=\"\(axis.x(0))\" x2=\"\(axis.x(0))\" y1=\"16\" "
      + "y2=\"\(height - 4)\"/>"
    for (place, bot) in ranking.enumerated() {
      let y = top + rowHeight * place + rowHeight / 2
      let numbers =
        "\(ArenaReport.rating(ratings.elo[bot])) \(ArenaReport.ratingInterval(ratings.eloErrors[bot]))"
      svg +=
        "<g class=\"rating\" data-bot=\"\(bot)\"><title>\(escaped("\(result.bots[bot]): \(numbers)"))</title>"
        + "<text x=\"\(labelWidth - 8)\" y=\"\(y + 4)\" text-anchor=\"end\">"
        + "\(escaped("\(place + 1). \(labels[bot])"))</text>"
        + axis.interval(low: lows[bot], value: ratings.elo[bot], high: highs[bot], y: y)
        + "<text class=\"numbers\" x=\"\(labelWidth + chartWidth + 8)\" y=\"\(y + 4)\">"
        + "\(escaped(numbers))</text></g>"
    }
    svg += "</svg>"
    return """
      <section id="ratings">
      <h2>Ratings</h2>
      <p class="muted">Bradley–Terry on decisive rounds, Elo scale, centred on 0; the bar \
      is the 95% interval from the Fisher information. Rock–paper–scissors is not \
      transitive: read the win rates and the verdicts first, a rating is one number for a \
      whole pool.</p>
      <figure>\(svg)</figure>
      </section>
      """
  }

  // MARK: - The bots

  /// Each bot's full name (a program's whole command) beside its label and rating.
  var bots: String {
    let ratings = result.ratings
    var rows = ""
    for bot in result.bots.indices {
      rows +=
        "<tr><td class=\"num\">\(bot + 1)</td><td>\(escaped(labels[bot]))</td>"
        + "<td class=\"name\">\(escaped(result.bots[bot]))</td>"
        + "<td class=\"num\">\(ArenaReport.rating(ratings.elo[bot]))</td>"
        + "<td class=\"num\">\(ArenaReport.ratingInterval(ratings.eloErrors[bot]))</td></tr>\n"
    }
    return """
      <section id="bots">
      <h2>Bots</h2>
      <table class="bots">
      <tr><th class="num">#</th><th>label</th><th>as named</th><th class="num">rating</th>\
      <th class="num">95%</th></tr>
      \(rows)</table>
      </section>
      """
  }
}

/// A horizontal axis from `low` to `high` drawn `width` points wide (less `inset` at each
/// end), starting `left` points in: where a value goes, and its marks.
struct IntervalAxis {
  var low: Double
  var high: Double
  var width: Int
  var inset: Int
  var left = 0

  /// Where `value` goes, in points from the figure's left edge.
  func position(_ value: Double) -> Double {
    let share = (value - low) / (high - low)
    return Double(left + inset) + share * Double(width - 2 * inset)
  }

  /// ``position(_:)`` as an SVG coordinate.
  func x(_ value: Double) -> String { decimal(position(value), 1) }

  /// A bar from `low` to `high` with short ends, and a point at `value`.
  func interval(low: Double, value: Double, high: Double, y: Int) -> String {
    let (from, to) = (x(low), x(high))
    return "<line class=\"bar\" x1=\"\(from)\" x2=\"\(to)\" y1=\"\(y)\" y2=\"\(y)\"/>"
      + "<line class=\"bar\" x1=\"\(from)\" x2=\"\(from)\" y1=\"\(y - 4)\" y2=\"\(y + 4)\"/>"
      + "<line class=\"bar\" x1=\"\(to)\" x2=\"\(to)\" y1=\"\(y - 4)\" y2=\"\(y + 4)\"/>"
      + "<circle class=\"point\" cx=\"\(x(value))\" cy=\"\(y)\" r=\"4\"/>"
  }

  /// A shaded band from `from` to `to`, the figure's whole height.
  func band(_ from: Double, _ to: Double, height: Int) -> String {
    let (start, end) = (position(from), position(to))
    return "<rect class=\"zone\" x=\"\(decimal(start, 1))\" y=\"0\" "
      + "width=\"\(decimal(end - start, 1))\" height=\"\(height)\"/>"
  }

  /// A dashed upright line at `value`.
  func centre(_ value: Double, height: Int) -> String {
    "<line class=\"centre\" x1=\"\(x(value))\" x2=\"\(x(value))\" y1=\"0\" y2=\"\(height)\"/>"
  }

  /// A tick's label, made of digits and signs only (never a name).
  func tickLabel(_ text: String, at value: Double, y: Int) -> String {
    "<text class=\"tick\" x=\"\(x(value))\" y=\"\(y)\" text-anchor=\"middle\">\(text)</text>"
  }

  /// A round step (1, 2, 2.5 or 5 times a power of ten) that cuts `span` into at most
  /// `most` parts.
  static func tickStep(span: Double, most: Int) -> Double {
    guard span.isFinite, span > 0 else { return 100 }
    let rough = span / Double(most)
    let power = pow(10, (log10(rough)).rounded(.down))
    for factor in [1, 2, 2.5, 5, 10] where factor * power >= rough { return factor * power }
    return 10 * power
  }
}

/// `text` safe in HTML and SVG, as a tag's text or a quoted attribute's value: `&`, `<`,
/// `>`, `"` and `'` are written as entities.
func escaped(_ text: String) -> String {
  var out = ""
  out.reserveCapacity(text.utf8.count)
  for character in text.unicodeScalars {
    switch character {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&#39;"
    default: out.unicodeScalars.append(character)
    }
  }
  return out
}
