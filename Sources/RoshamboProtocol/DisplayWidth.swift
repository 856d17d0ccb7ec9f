/// How many terminal columns text takes, as a terminal draws it: East Asian wide and
/// fullwidth characters and emoji take 2, combining marks and invisible format
/// characters 0, everything else 1.
///
/// Invariant: pure and total: every `Character` has a width of 0, 1 or 2.
public enum DisplayWidth {
  /// The columns `text` takes.
  public static func columns(of text: some StringProtocol) -> Int {
    // Printable ASCII, most of what a screen draws, is one column a byte; only other
    // text needs grapheme clusters, which cost far more to find.
    if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return text.utf8.count }
    // Scalars that never join a cluster with their neighbours (Latin, box drawing, kana,
    // CJK ideographs) are each a character of their own: their widths add up as is.
    if text.unicodeScalars.allSatisfy(isStandalone) {
      return text.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
    }
    return text.reduce(0) { $0 + columns(of: $1) }
  }

  /// Whether `scalar` is always a grapheme cluster on its own (no mark, joiner, selector,
  /// jamo or regional indicator), from blocks screens and names use most.
  private static func isStandalone(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x20..<0x300, 0x2500..<0x2580, 0x3041..<0x3097, 0x30A1..<0x30FB, 0x4E00..<0xA000:
      return true
    default:
      return false
    }
  }

  /// The columns one character (a grapheme cluster) takes.
  public static func columns(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    // An emoji presentation selector makes the cluster a wide emoji.
    if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
    return columns(of: first)
  }

  /// The columns one scalar takes on its own.
  public static func columns(of scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
    if value < 0x300 { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control: return 0
    default: break
    }
    if scalar.properties.isDefaultIgnorableCodePoint { return 0 }
    return isWide(value) ? 2 : 1
  }

  /// East Asian Wide (W) and Fullwidth (F) ranges, and the emoji blocks terminals draw
  /// two columns wide.
  private static let wideRanges: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
    0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
    0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
    0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
    0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
    0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
    0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
    0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
    0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF,
    0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
    0x1F200...0x1F251, 0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C,
    0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0,
    0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440, 0x1F442...0x1F4FC,
    0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A...0x1F57A,
    0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5,
    0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF,
    0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0,
    0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF,
    0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]

  private static func isWide(_ value: UInt32) -> Bool {
    guard value >= 0x1100 else { return false }
    var low = 0
    var high = wideRanges.count - 1
    while low <= high {
      let middle = (low + high) / 2
      let range = wideRanges[middle]
      if value < range.lowerBound {
        high = middle - 1
      } else if value > range.upperBound {
        low = middle + 1
      } else {
        return true
      }
    }
    return false
  }

  /// The longest start of `text` that fits in `limit` columns (at least one character,
  /// so a caller that loops over the rest always moves on).
  public static func prefix(of text: Substring, fitting limit: Int) -> Substring {
    var used = 0
    var end = text.startIndex
    for index in text.indices {
      used += columns(of: text[index])
      if used > limit { break }
      end = text.index(after: index)
    }
    return end == text.startIndex ? text.prefix(1) : text[..<end]
  }

  /// `text` cut to at most `limit` columns; a cut ends with "…" (which takes one).
  public static func truncated(_ text: String, toColumns limit: Int) -> String {
    guard columns(of: text) > limit else { return text }
    guard limit > 0 else { return "" }
    var out = ""
    var used = 0
    for character in text {
      let width = columns(of: character)
      if used + width > limit - 1 { break }
      out.append(character)
      used += width
    }
    return out + "…"
  }
}
