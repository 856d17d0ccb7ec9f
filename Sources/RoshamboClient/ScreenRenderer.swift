import RoshamboGame

/// Lays `ScreenProps` out as lines of text for a terminal of a given width: pure, so
/// screens are tested as text. Colours are ANSI codes, only when asked for.
///
/// Invariant: no line is wider than `width` characters (not counting colour codes).
public struct ScreenRenderer: Sendable {
  public var width: Int
  public var color: Bool

  public init(width: Int, color: Bool) {
    self.width = max(20, width)
    self.color = color
  }

  public func lines(for props: ScreenProps) -> [String] {
    var out: [String] = []
    func add(_ text: String, _ style: Style = .plain) {
      for line in wrap(text) { out.append(paint(line, style)) }
    }
    add(props.title, .bold)
    add(String(repeating: "─", count: min(width, 60)), .dim)
    for player in props.players {
      let you = player.isYou ? " (you)" : ""
      add(
        "P\(player.seat.rawValue) \(player.name)\(you)  score \(player.score)  \(player.status)",
        player.isYou ? .bold : .plain)
    }
    var roundLine = [props.round, props.countdown, props.latency].compactMap { $0 }.joined(
      separator: " · ")
    if roundLine.isEmpty { roundLine = " " }
    add(roundLine)
    out.append("")
    if let banner = props.banner { add(banner, .banner) }
    if let reveal = props.reveal { add(reveal, .accent) }
    add(props.status)
    if let prompt = props.prompt { add(prompt, .bold) }
    if let notice = props.notice { add("! " + notice, .warning) }
    if let connection = props.connection { add(connection, .warning) }
    if !props.history.isEmpty {
      out.append("")
      add("History:", .dim)
      for row in props.history.suffix(8) { add("  " + row, .dim) }
    }
    out.append("")
    add(props.keys, .dim)
    return out
  }

  enum Style { case plain, bold, dim, accent, banner, warning }

  private func paint(_ text: String, _ style: Style) -> String {
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

  /// Splits `text` into lines of at most `width` characters, at spaces where it can.
  func wrap(_ text: String) -> [String] {
    if text.count <= width { return [text] }  // keeps indentation and spacing as written
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      var word = String(word)
      while word.count > width {
        if !current.isEmpty { lines.append(current); current = "" }
        lines.append(String(word.prefix(width)))
        word = String(word.dropFirst(width))
      }
      if current.isEmpty {
        current = word
      } else if current.count + 1 + word.count <= width {
        current += " " + word
      } else {
        lines.append(current)
        current = word
      }
    }
    lines.append(current)
    return lines
  }
}
