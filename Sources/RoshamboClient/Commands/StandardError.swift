import Foundation

/// What `roshambo` says on standard error: one paragraph a message, prefixed with the
/// program's name and wrapped at the terminal's width when standard error is one.
///
/// Invariant: each line given is made safe on its own (``TerminalText/sanitized(_:)``),
/// so text from the network can never start a line that looks like this program's.
public enum StandardError {
  /// The program's name, which starts each message.
  public static let prefix = "roshambo: "

  /// One message on standard error; text from the network in it is made safe first.
  public static func complain(_ message: String) {
    write(text(lines: [message], width: Paragraph.standardErrorWidth))
  }

  /// Lines on standard error, as one message.
  public static func complain(lines: [String]) {
    write(text(lines: lines, width: Paragraph.standardErrorWidth))
  }

  /// The text `complain(lines:)` writes for `lines`, wrapped at `width` (nil: not
  /// wrapped), ending with a newline.
  public static func text(lines: [String], width: Int?) -> String {
    let safe = lines.map { TerminalText.sanitized($0) }
    let paragraphs = (prefix + safe.joined(separator: "\n")).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map { line in width.map { Paragraph.wrapped(String(line), width: $0) } ?? String(line) }
    return paragraphs.joined(separator: "\n") + "\n"
  }

  /// Writes `text` as it is.
  public static func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
