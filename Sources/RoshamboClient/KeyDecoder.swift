/// Turns the bytes a terminal sends for keys into keys: arrows, Home and End arrive as
/// escape sequences (`ESC [ C`), everything else as one byte.
///
/// Invariant: a byte is part of at most one key; an escape sequence this does not know
/// is dropped whole, never read as the letters in it.
public struct KeyDecoder: Sendable {
  public enum Key: Equatable, Sendable {
    case up, down, right, left, home, end
    case byte(UInt8)
  }

  /// The bytes of an escape sequence read so far.
  private var escape: [UInt8] = []

  public init() {}

  /// The key `byte` completes, if it completes one.
  public mutating func feed(_ byte: UInt8) -> Key? {
    guard byte == 0x1B || !escape.isEmpty else { return .byte(byte) }
    escape.append(byte)
    if escape.count == 2, escape[1] != UInt8(ascii: "[") {
      escape.removeAll()
      return nil
    }
    guard escape.count >= 3 else { return nil }
    // `ESC [ 1 ~` / `ESC [ 4 ~` (Home, End on some terminals) are four bytes.
    if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(escape[2]), escape.count == 3 {
      return nil
    }
    defer { escape.removeAll() }
    switch (escape[2], escape.count == 4 ? escape[3] : 0) {
    case (UInt8(ascii: "A"), _): return .up
    case (UInt8(ascii: "B"), _): return .down
    case (UInt8(ascii: "C"), _): return .right
    case (UInt8(ascii: "D"), _): return .left
    case (UInt8(ascii: "H"), _), (UInt8(ascii: "1"), UInt8(ascii: "~")): return .home
    case (UInt8(ascii: "F"), _), (UInt8(ascii: "4"), UInt8(ascii: "~")): return .end
    default: return nil
    }
  }
}
