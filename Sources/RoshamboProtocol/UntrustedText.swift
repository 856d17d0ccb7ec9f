/// Untrusted text made safe to repeat in an error message or a log line: cut to a
/// bounded length, and with every control, format or non-ASCII-space character escaped,
/// so a crafted name can neither forge another field (`x room=admin`) nor fill a disk or
/// a screen with one line.
///
/// Invariant: the result of ``escaped(_:limit:)`` is one line of at most about
/// `limit + 16` characters in which any `"` or `\` is escaped.
public enum UntrustedText {
  /// `text` escaped and cut to `limit` characters (a cut is marked with `…` and the full
  /// length in bytes).
  public static func escaped(_ text: String, limit: Int = 32) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count >= limit {
        out += "…(\(text.utf8.count) bytes)"
        break
      }
      count += 1
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      default:
        if isPrintable(scalar) {
          out.unicodeScalars.append(scalar)
        } else {
          out += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
      }
    }
    return out
  }

  /// `text` with every control, format or non-ASCII-space character escaped as in
  /// ``escaped(_:limit:)``, and nothing else changed: for text that is printed whole
  /// (another program's answer) and may keep its quotes.
  public static func printable(_ text: String) -> String {
    guard !text.unicodeScalars.allSatisfy(isPrintable) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      if isPrintable(scalar) {
        out.unicodeScalars.append(scalar)
      } else {
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      }
    }
    return out
  }

  private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value == 0x20 { return true }
    if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return false }
    switch scalar.properties.generalCategory {
    case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator,
      .paragraphSeparator, .spaceSeparator:
      return false
    default:
      return !scalar.properties.isDefaultIgnorableCodePoint
    }
  }
}
