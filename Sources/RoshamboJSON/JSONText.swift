/// A small JSON writer for the messages this package sends: the contract's shapes only,
/// written straight into bytes, with no intermediate tree (docs/PERFORMANCE.md compares
/// it with Foundation's encoders).
///
/// Invariant: everything it writes is valid JSON (RFC 8259) that ``JSONReader`` and
/// `JSONDecoder` read back to the same values (tested by round trips of every message).
package struct JSONText {
  package private(set) var bytes: [UInt8] = []

  package init(capacity: Int = 256) {
    bytes.reserveCapacity(capacity)
  }

  /// Empties the text, keeping its storage for the next one.
  package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

  package mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  package mutating func int<I: BinaryInteger>(_ value: I) {
    if let value = Int64(exactly: value) {
      int(value)
    } else {
      bytes.append(contentsOf: String(value).utf8)
    }
  }

  /// The digits written straight into the text (`String(value)` through `BinaryInteger`
  /// was a tenth of encoding a room's view).
  package mutating func int(_ value: Int) { int(Int64(value)) }

  package mutating func int(_ value: Int64) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var rest = value.magnitude
    // UInt64.max has 20 digits.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      } while rest > 0
      bytes.append(contentsOf: UnsafeMutableBufferPointer(rebasing: digits[start...]))
    }
  }

  /// A number with at most six decimals, as few as it needs (`1500`, `1464.050671`,
  /// `-3.5`): `value` rounded to a millionth. A value that is not finite, or whose
  /// millionths do not fit 64 bits, is written as 0 (no rating comes near).
  package mutating func decimal(_ value: Double) {
    let scaled = (value * 1e6).rounded()
    guard scaled.isFinite, abs(scaled) < 9e18 else {
      raw("0")
      return
    }
    let millionths = Int64(scaled)
    if millionths < 0 { raw("-") }
    let magnitude = millionths.magnitude
    int(magnitude / 1_000_000)
    var fraction = magnitude % 1_000_000
    guard fraction > 0 else { return }
    var digits = 6
    while fraction % 10 == 0 {
      fraction /= 10
      digits -= 1
    }
    raw(".")
    let text = String(fraction)
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits - text.utf8.count))
    bytes.append(contentsOf: text.utf8)
  }

  package mutating func bool(_ value: Bool) {
    value ? raw("true") : raw("false")
  }

  package mutating func null() { raw("null") }

  /// A JSON string: quotes, backslashes and control characters escaped.
  package mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    // Names, rooms, keys and digests seldom need escaping: then all bytes at once, read
    // as contiguous bytes (not through the UTF-8 view's iterator).
    var value = value
    let plain = value.withUTF8 { utf8 in
      guard
        !utf8.contains(where: {
          $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
        })
      else { return false }
      bytes.append(contentsOf: utf8)
      return true
    }
    if plain {
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0..<0x20:
        raw("\\u00")
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(hex[Int(byte >> 4)])
        bytes.append(hex[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  package mutating func optionalString(_ value: String?) {
    if let value { string(value) } else { null() }
  }

  package mutating func optionalInt<I: BinaryInteger>(_ value: I?) {
    if let value { int(value) } else { null() }
  }

  /// `"key":`
  package mutating func key(_ name: StaticString) {
    bytes.append(UInt8(ascii: "\""))
    raw(name)
    raw("\":")
  }

  package mutating func comma() { bytes.append(UInt8(ascii: ",")) }
}
