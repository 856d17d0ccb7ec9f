import RoshamboGame
import RoshamboProtocol

/// Lays `ScreenProps` out as lines of text for a terminal of a given size: pure, so
/// screens are tested as text. Colours are ANSI codes, only when asked for.
///
/// Invariant: no line is wider than `width` columns (wide characters count two; colour
/// codes none); with a `height`, there are at most that many lines and the header (the
/// room, both players and their scores, the round) comes first whatever is cut: the
/// history is shortened first, then blank lines go, then the bottom is cut.
public struct ScreenRenderer: Sendable {
  public var width: Int
  /// Rows available, or nil for as many as the screen needs.
  public var height: Int?
  public var color: Bool

  public init(width: Int, height: Int? = nil, color: Bool) {
    self.width = max(20, width)
    self.height = height.map { max(1, $0) }
    self.color = color
  }

  public func lines(for props: ScreenProps) -> [String] {
    var header: [String] = []
    var body: [String] = []
    func add(_ text: String, _ style: Style = .plain, to lines: inout [String]) {
      for line in wrap(text) { lines.append(paint(line, style)) }
    }
    for line in wrapParts(props.title) { header.append(paint(line, .bold)) }
    add(String(repeating: "─", count: min(width, 60)), .dim, to: &header)
    for player in props.players {
      let you = player.isYou ? " (you)" : ""
      add(
        "P\(player.seat.rawValue) \(player.name)\(you)  score \(player.score)  \(player.status)",
        player.isYou ? .bold : .plain, to: &header)
    }
    var roundLine = [props.round, props.countdown, props.latency].compactMap { $0 }.joined(
      separator: " · ")
    if roundLine.isEmpty { roundLine = " " }
    add(roundLine, to: &header)
    body.append("")
    if let banner = props.banner { add(banner, .banner, to: &body) }
    if let reveal = props.reveal { add(reveal, .accent, to: &body) }
    add(props.status, to: &body)
    if let prompt = props.prompt { add(prompt, .bold, to: &body) }
    if let closing = props.closing { add("! " + closing, .warning, to: &body) }
    if let notice = props.notice { add("! " + notice, .warning, to: &body) }
    if let connection = props.connection { add(connection, .warning, to: &body) }
    var footer = [""]
    add(props.keys, .dim, to: &footer)
    var rows: [[String]] = props.history.suffix(8).map { row in
      var lines: [String] = []
      add("  " + row, .dim, to: &lines)
      return lines
    }
    func history() -> [String] {
      rows.isEmpty ? [] : ["", paint("History:", .dim)] + rows.flatMap { $0 }
    }
    guard let height else { return header + body + history() + footer }
    // Too tall: the oldest rounds go first, then the blank lines, then the bottom.
    while header.count + body.count + history().count + footer.count > height, !rows.isEmpty {
      rows.removeFirst()
    }
    var out = header + body + history() + footer
    if out.count > height { out = header + (body + footer).filter { !$0.isEmpty } }
    return Array(out.prefix(height))
  }

  enum Style { case plain, bold, dim, accent, banner, warning }

  func paint(_ text: String, _ style: Style) -> String {
    guard color else { return text }
    let code: String
    switch style {
    case .plain: return text
    case .bold: code = "1"
    case .dim: code = "2"
    case .accent: code = "36"
    case .banner: code = "1;33"
    case .warning: code = "31"
    }
    return "\u{1B}[\(code)m\(text)\u{1B}[0m"
  }

  /// Splits `text` into lines of at most `width` columns (wide characters count two), at
  /// spaces where it can.
  /// `text` made of parts joined by " · " (a title), wrapped between its parts, never
  /// inside one ("best" and "of 3" on two lines).
  public func wrapParts(_ text: String) -> [String] {
    let glued = text.components(separatedBy: " · ")
      .map { $0.replacingOccurrences(of: " ", with: "\u{A0}") }
      .joined(separator: " · ")
    return wrap(glued).map { $0.replacingOccurrences(of: "\u{A0}", with: " ") }
  }

  public func wrap(_ text: String) -> [String] {
    // Fits as it is: keeps indentation and spacing as written.
    if DisplayWidth.columns(of: text) <= width { return [text] }
    var lines: [String] = []
    var current = ""
    var used = 0
    for piece in text.split(separator: " ", omittingEmptySubsequences: false) {
      var word = piece
      while DisplayWidth.columns(of: word) > width {
        if !current.isEmpty {
          lines.append(current)
          (current, used) = ("", 0)
        }
        let head = DisplayWidth.prefix(of: word, fitting: width)
        lines.append(String(head))
        word = word[head.endIndex...]
      }
      let columns = DisplayWidth.columns(of: word)
      if current.isEmpty {
        (current, used) = (String(word), columns)
      } else if used + 1 + columns <= width {
        current += " " + word
        used += 1 + columns
      } else {
        lines.append(current)
        (current, used) = (String(word), columns)
      }
    }
    lines.append(current)
    return lines
  }
}
