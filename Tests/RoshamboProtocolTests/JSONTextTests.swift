import Foundation
import Testing

@testable import RoshamboJSON

/// Integers written digit by digit read the same as Swift's own description of them;
/// strings, escaped or copied whole, read back as what was written.
@Suite("JSON text: integers and strings")
struct JSONTextTests {
  static func written(_ write: (inout JSONText) -> Void) -> String {
    var text = JSONText()
    write(&text)
    return String(decoding: text.bytes, as: UTF8.self)
  }

  @Test("every width, both signs, the extremes, and integers Int64 cannot hold")
  func integers() {
    var values: [Int64] = [
      0, 1, -1, 9, 10, -10, 99, 100, 1_000_000, .max, .min, .max - 1, .min + 1,
    ]
    var power: Int64 = 1
    for _ in 0..<18 {
      power *= 10
      values += [power - 1, power, power + 1, -power]
    }
    var random = SystemRandomNumberGenerator()
    values += (0..<1_000).map { _ in Int64.random(in: .min ... .max, using: &random) }
    for value in values {
      #expect(Self.written { $0.int(value) } == String(value))
      #expect(Self.written { $0.int(Int(value)) } == String(value))
    }
    // Through the generic path: other widths, and values past Int64.
    #expect(Self.written { $0.int(UInt64.max) } == "18446744073709551615")
    #expect(Self.written { $0.int(Int8.min) } == "-128")
    #expect(Self.written { $0.int(UInt8(255)) } == "255")
    #expect(Self.written { $0.optionalInt(Int?.none) } == "null")
    #expect(Self.written { $0.optionalInt(Int?.some(-42)) } == "-42")
  }

  @Test("strings with and without what must be escaped read back the same")
  func strings() throws {
    let values = [
      "", "Alice", "duel-12", "Zoë ✓ 🎉", "quote \" inside", "back\\slash", "tab\tnew\nline",
      "\u{1B}]0;title\u{07}", "\u{0}", String(repeating: "x", count: 300),
    ]
    for value in values {
      let text = Self.written { $0.string(value) }
      let read = try JSONSerialization.jsonObject(
        with: Data(text.utf8), options: .fragmentsAllowed)
      #expect(read as? String == value, "\(text)")
    }
  }
}
