import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Paragraphs printed on a terminal (the trust prompt, what went wrong), wrapped at its
/// width between words.
///
/// Invariant: no line is wider than the width unless a single word is (a fingerprint);
/// an identity code (`1234-5678-9012-3456`, no spaces) is never split.
public enum Paragraph {
  /// `text` wrapped at `width` columns; lines after the first start with `indent`.
  public static func wrapped(_ text: String, width: Int, indent: String = "") -> String {
    let renderer = ScreenRenderer(width: width, color: false)
    var lines: [String] = []
    for line in renderer.wrap(text) {
      if lines.isEmpty {
        lines.append(line)
        continue
      }
      // The rest, indented, wrapped again to the width left.
      let rest = ScreenRenderer(width: max(20, width - indent.count), color: false)
      lines += rest.wrap(line).map { indent + $0 }
    }
    return lines.joined(separator: "\n")
  }

  /// The width of the terminal standard error writes to, or nil when it is not one (a
  /// pipe or a file gets lines as they are, for scripts).
  public static var standardErrorWidth: Int? { width(of: STDERR_FILENO) }

  /// The width of the terminal standard output writes to, or nil when it is not one.
  public static var standardOutputWidth: Int? { width(of: STDOUT_FILENO) }

  private static func width(of descriptor: Int32) -> Int? {
    guard isatty(descriptor) == 1 else { return nil }
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// `text` as a paragraph on standard error: wrapped at its terminal's width, if it is
  /// one.
  public static func forStandardError(_ text: String) -> String {
    standardErrorWidth.map { wrapped(text, width: $0) } ?? text
  }

  /// The question asked before trusting a server met for the first time.
  public static func trustQuestion(
    address: String, code: String, fingerprint: String, width: Int
  ) -> String {
    [
      "The server at \(address) is new to this machine.",
      "Its identity code is  \(code)",
      "Compare all 16 digits with the code roshambo-server printed when it started (ask its "
        + "host): a forged certificate can match the first eight in about a second, while all "
        + "16 take some 10^16 tries.",
      "(Its full fingerprint, for --pin: \(fingerprint))",
      "Trust this server from now on? [y/N] ",
    ].map { wrapped($0, width: width) }.joined(separator: "\n")
  }
}
