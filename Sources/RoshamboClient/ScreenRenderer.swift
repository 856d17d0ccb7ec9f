import RoshamboGame
import RoshamboProtocol

/// Lays `ScreenProps` out as lines of text for a terminal of a given width: pure, so
/// screens are tested as text. Colours are ANSI codes, only when asked for.
///
/// Invariant: no line is wider than `width` columns (wide characters count two; colour
/// codes none).
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

  /// Splits `text` into lines of at most `width` columns (wide characters count two), at
  /// spaces where it can.
  func wrap(_ text: String) -> [String] {
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
