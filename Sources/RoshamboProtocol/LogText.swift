/// Untrusted text made safe to put in a log line or an error message: cut to a bounded
/// length, quoted, and with every control, format or non-ASCII-space character escaped,
/// so a crafted name can neither forge another field (`x room=admin`) nor fill a disk
/// with one line.
///
/// Invariant: the result of ``quoted(_:limit:)`` is one line of at most about
/// `limit + 16` characters, begins and ends with `"`, and any `"` or `\` inside is
/// escaped.
public enum LogText {
  /// The most characters of untrusted text kept in a log field.
  public static let defaultLimit = 48

  /// `text` quoted and escaped for a log field, cut to `limit` characters (a cut is
  /// marked with `…` and the full length in bytes).
  public static func quoted(_ text: String, limit: Int = defaultLimit) -> String {
    "\"" + escaped(text, limit: limit) + "\""
  }

  /// `text` escaped (as ``quoted(_:limit:)`` without the quotes) and cut to `limit`
  /// characters.
  public static func cut(_ text: String, limit: Int = 32) -> String {
    escaped(text, limit: limit)
  }

  private static func escaped(_ text: String, limit: Int) -> String {
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
