import Foundation

/// The rule for a player's name, the one place it is defined: the server refuses a
/// `hello` whose name breaks it, and the client checks `--name` with it before
/// connecting.
///
/// Invariant: a name ``normalize(_:)`` returns is in Unicode NFC, has 1 to
/// ``maxCharacters`` characters, takes at most ``maxColumns`` terminal columns and
/// ``maxBytes`` UTF-8 bytes, has at most ``maxMarksPerCharacter`` combining marks in any
/// character, holds no control, format, private-use, unassigned or invisible character,
/// neither starts nor ends with a space, and has at least one visible character. So every
/// name fits a screen line and a frame, however it was crafted.
public enum PlayerName {
  public static let maxCharacters = 24
  public static let maxColumns = 32
  public static let maxBytes = 96
  public static let maxMarksPerCharacter = 3

  /// Why a name is refused; the description says it in a sentence for people.
  public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooManyCharacters(Int)
    case tooManyColumns(Int)
    case tooManyBytes(Int)
    case tooManyMarks
    case forbidden(UInt32)
    case invisible
    /// A space first or last: " Alice" would pass for "Alice".
    case spaceAtEnd

    public var description: String {
      switch self {
      case .empty: "a name must not be empty"
      case .tooManyCharacters(let count):
        "a name has at most \(PlayerName.maxCharacters) characters, not \(count)"
      case .tooManyColumns(let count):
        "a name takes at most \(PlayerName.maxColumns) columns on a screen, not \(count)"
      case .tooManyBytes(let count):
        "a name has at most \(PlayerName.maxBytes) bytes of UTF-8, not \(count)"
      case .tooManyMarks:
        "a name's characters have at most \(PlayerName.maxMarksPerCharacter) combining marks each"
      case .forbidden(let value):
        "a name must not contain U+\(String(value, radix: 16, uppercase: true)) "
          + "(control, format, invisible, private-use or unassigned characters are refused)"
      case .invisible: "a name needs at least one visible character"
      case .spaceAtEnd: "a name must not start or end with a space"
      }
    }
  }

  /// The name in NFC if it keeps the rule, or the first rule it breaks.
  public static func normalize(_ raw: String) -> Result<String, Problem> {
    // Cheap bounds first, so a crafted 64 KiB name costs no normalization.
    if raw.isEmpty { return .failure(.empty) }
    if raw.utf8.count > 4 * maxBytes { return .failure(.tooManyBytes(raw.utf8.count)) }
    let name = raw.precomposedStringWithCanonicalMapping
    if name.utf8.count > maxBytes { return .failure(.tooManyBytes(name.utf8.count)) }
    var characters = 0
    var visible = false
    for character in name {
      characters += 1
      var marks = 0
      for scalar in character.unicodeScalars {
        if isForbidden(scalar) { return .failure(.forbidden(scalar.value)) }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: marks += 1
        default: break
        }
      }
      if marks > maxMarksPerCharacter { return .failure(.tooManyMarks) }
      if !character.isWhitespace, DisplayWidth.columns(of: character) > 0 { visible = true }
    }
    if characters > maxCharacters { return .failure(.tooManyCharacters(characters)) }
    let columns = DisplayWidth.columns(of: name)
    if columns > maxColumns { return .failure(.tooManyColumns(columns)) }
    if !visible { return .failure(.invisible) }
    if name.first == " " || name.last == " " { return .failure(.spaceAtEnd) }
    return .success(name)
  }

  /// Whether `name` keeps the rule as it is (already normalized).
  public static func isValid(_ name: String) -> Bool {
    (try? normalize(name).get()) == name
  }

  /// Characters that draw nothing or change how later text is drawn. Spaces other than
  /// U+0020 are refused too, so two names that look the same are the same.
  private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator,
      .paragraphSeparator:
      return true
    case .spaceSeparator:
      return scalar.value != 0x20
    default:
      break
    }
    switch scalar.value {
    // Hangul fillers and the blank Braille pattern draw as empty space.
    case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800: return true
    // Variation selectors are default-ignorable but legitimately follow emoji.
    case 0xFE00...0xFE0F: return false
    default: return scalar.properties.isDefaultIgnorableCodePoint
    }
  }
}
