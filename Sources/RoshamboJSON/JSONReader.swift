/// A strict JSON reader (RFC 8259) that decoders drive value by value, straight from the
/// bytes, with no intermediate tree: what a client decodes each `state` with
/// (docs/PERFORMANCE.md compares it with `JSONDecoder`).
///
/// Invariant: it accepts exactly RFC 8259 JSON, which is what `JSONDecoder` accepts for
/// the same shapes but for the trailing commas `JSONDecoder` tolerates (checked against
/// it on every truncation and single-byte change of sample messages in the tests), and
/// it never reads outside its buffer.
package struct JSONReader {
  /// What is wrong with the text, and where (a byte offset).
  package struct Failure: Error, CustomStringConvertible, Equatable {
    package var message: String
    package var offset: Int
    package var description: String { "\(message) (at byte \(offset))" }
  }

  private let bytes: UnsafeRawBufferPointer
  private var index = 0
  /// How deep the reader is in arrays and objects (bounded, so hostile input cannot
  /// exhaust the stack through `skipValue`).
  private var depth = 0
  static let maxDepth = 64

  package init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  /// Calls `body` with `bytes` as one buffer: their own storage when they have one
  /// (`[UInt8]`, a buffer pointer), a copy otherwise.
  package static func withBuffer<T>(
    _ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) throws -> T
  ) rethrows -> T {
    if let result = try bytes.withContiguousStorageIfAvailable({
      try body(UnsafeRawBufferPointer($0))
    }) {
      return result
    }
    return try Array(bytes).withUnsafeBytes(body)
  }

  /// Reads the whole text with `body` and checks that only whitespace follows.
  package static func read<T>(
    _ buffer: UnsafeRawBufferPointer, _ body: (inout JSONReader) throws -> T
  ) throws -> T {
    var reader = JSONReader(buffer)
    let value = try body(&reader)
    reader.skipWhitespace()
    guard reader.index == buffer.count else {
      throw reader.failure("unexpected text after the JSON value")
    }
    return value
  }

  // MARK: - Structure

  /// Reads an object, calling `body` with each key; `body` must read the key's value.
  package mutating func object(_ body: (inout JSONReader, String) throws -> Void) throws {
    try enter(UInt8(ascii: "{"), "an object")
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      index += 1
      depth -= 1
      return
    }
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else { throw failure("expected a key in quotes") }
      let key = try string()
      skipWhitespace()
      try expect(UInt8(ascii: ":"))
      try body(&self, key)
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        depth -= 1
        return
      default: throw failure("expected , or } in an object")
      }
    }
  }

  /// Reads an array, calling `body` once per element; `body` must read the element.
  package mutating func array(_ body: (inout JSONReader) throws -> Void) throws {
    try enter(UInt8(ascii: "["), "an array")
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      index += 1
      depth -= 1
      return
    }
    while true {
      try body(&self)
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        depth -= 1
        return
      default: throw failure("expected , or ] in an array")
      }
    }
  }

  /// Reads an array whose elements `element` reads.
  package mutating func array<T>(of element: (inout JSONReader) throws -> T) throws -> [T] {
    var values: [T] = []
    try array { values.append(try element(&$0)) }
    return values
  }

  /// Reads and discards any value (an unknown field's).
  package mutating func skipValue() throws {
    skipWhitespace()
    switch peek() {
    case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
    case UInt8(ascii: "["): try array { try $0.skipValue() }
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
    case UInt8(ascii: "n"): try literal("null")
    default: try skipNumber()
    }
  }

  // MARK: - Scalars

  /// Consumes a `null` if one comes next; true if it did.
  package mutating func null() throws -> Bool {
    skipWhitespace()
    guard peek() == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  package mutating func bool() throws -> Bool {
    skipWhitespace()
    switch peek() {
    case UInt8(ascii: "t"):
      try literal("true")
      return true
    case UInt8(ascii: "f"):
      try literal("false")
      return false
    default: throw failure("expected true or false")
    }
  }

  /// What kind of value comes next.
  package enum Kind: Equatable {
    case object, array, string, number, bool, null
  }

  /// The kind of the next value, without reading it.
  package mutating func kind() throws -> Kind {
    skipWhitespace()
    guard let byte = peek() else { throw failure("the text ends early") }
    switch byte {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
    case UInt8(ascii: "n"): return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    default: throw failure("expected a value")
    }
  }

  /// An integer. A number with a fraction or exponent is accepted when it is exactly
  /// an integer that fits (`2.0`, `1e3`), as `JSONDecoder` does.
  package mutating func int() throws -> Int {
    let start = index
    guard let value = try exactInt() else { throw failure("expected an integer", at: start) }
    return value
  }

  /// A number, as an integer if it is exactly one that fits; nil if it is a valid
  /// number that is not (`1.5`, `1e30`).
  package mutating func exactInt() throws -> Int? {
    skipWhitespace()
    let start = index
    try skipNumber()
    let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
    var value = 0
    var negative = false
    var integral = true
    for (offset, byte) in text.enumerated() {
      if offset == 0, byte == UInt8(ascii: "-") {
        negative = true
        continue
      }
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
        integral = false
        break
      }
      let digit = Int(byte &- UInt8(ascii: "0"))
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) =
        negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
      guard !overflow1, !overflow2 else { return nil }
      value = sum
    }
    if integral { return value }
    return Double(String(decoding: text, as: UTF8.self)).flatMap { Int(exactly: $0) }
  }

  /// A string, escapes resolved; the bytes must be UTF-8.
  package mutating func string() throws -> String {
    skipWhitespace()
    let start = index
    try expect(UInt8(ascii: "\""))
    let first = index
    var ascii = true
    // The common case: no escapes, so the bytes are the string.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[first..<index])
        index += 1
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else {
          throw failure("the string is not valid UTF-8", at: start)
        }
        return text
      }
      ascii = ascii && byte < 0x80
      if byte == UInt8(ascii: "\\") { break }
      guard byte >= 0x20 else { throw failure("a control character inside a string") }
      index += 1
    }
    var unescaped = Array(UnsafeRawBufferPointer(rebasing: bytes[first..<index]))
    while true {
      guard index < bytes.count else { throw failure("the string is not closed", at: start) }
      let byte = bytes[index]
      index += 1
      switch byte {
      case UInt8(ascii: "\""):
        guard let text = String(validating: unescaped, as: UTF8.self) else {
          throw failure("the string is not valid UTF-8", at: start)
        }
        return text
      case UInt8(ascii: "\\"):
        try unescape(into: &unescaped)
      case 0..<0x20:
        index -= 1
        throw failure("a control character inside a string")
      default:
        unescaped.append(byte)
      }
    }
  }

  package mutating func optionalString() throws -> String? {
    try null() ? nil : string()
  }

  package mutating func optionalInt() throws -> Int? {
    try null() ? nil : int()
  }

  /// A number, as the nearest `Double` (so what ``JSONText/decimal(_:)`` wrote reads
  /// back to the value it was given).
  package mutating func double() throws -> Double {
    skipWhitespace()
    let start = index
    try skipNumber()
    let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
    guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
      throw failure("expected a number that fits a double", at: start)
    }
    return value
  }

  // MARK: - Errors

  /// An error at the current position (or `offset`).
  package func failure(_ message: String, at offset: Int? = nil) -> Failure {
    Failure(message: message, offset: offset ?? index)
  }

  // MARK: - Bytes

  private func peek() -> UInt8? {
    index < bytes.count ? bytes[index] : nil
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  private mutating func expect(_ byte: UInt8) throws {
    guard peek() == byte else {
      throw failure(peek() == nil ? "the text ends early" : "expected \(Character(.init(byte)))")
    }
    index += 1
  }

  private mutating func enter(_ open: UInt8, _ what: String) throws {
    skipWhitespace()
    guard peek() == open else { throw failure("expected \(what)") }
    guard depth < Self.maxDepth else { throw failure("nested more than \(Self.maxDepth) deep") }
    index += 1
    depth += 1
  }

  private mutating func literal(_ word: StaticString) throws {
    guard literalFollows(word) else { throw failure("expected \(word)") }
    index += word.utf8CodeUnitCount
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
  private mutating func skipNumber() throws {
    skipWhitespace()
    let start = index
    func digits(_ reader: inout JSONReader) -> Int {
      let from = reader.index
      while let byte = reader.peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
        reader.index += 1
      }
      return reader.index - from
    }
    if peek() == UInt8(ascii: "-") { index += 1 }
    let leading = peek()
    let count = digits(&self)
    guard count > 0 else { throw failure("expected a value", at: start) }
    guard leading != UInt8(ascii: "0") || count == 1 else {
      throw failure("a number has a leading zero", at: start)
    }
    if peek() == UInt8(ascii: ".") {
      index += 1
      guard digits(&self) > 0 else { throw failure("expected digits after the point") }
    }
    if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
      index += 1
      if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
      guard digits(&self) > 0 else { throw failure("expected digits in the exponent") }
    }
  }

  /// After a backslash: one escape, appended as UTF-8.
  private mutating func unescape(into output: inout [UInt8]) throws {
    guard let byte = peek() else { throw failure("the text ends early") }
    index += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
    case UInt8(ascii: "b"): output.append(0x08)
    case UInt8(ascii: "f"): output.append(0x0C)
    case UInt8(ascii: "n"): output.append(0x0A)
    case UInt8(ascii: "r"): output.append(0x0D)
    case UInt8(ascii: "t"): output.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hex4()
      if (0xD800..<0xDC00).contains(scalar) {
        // A high surrogate must be followed by an escaped low one.
        guard literalFollows("\\u") else { throw failure("a lone surrogate in a string") }
        index += 2
        let low = try hex4()
        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw failure("a lone surrogate in a string")
      }
      output.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
    default:
      throw failure("an unknown escape \\\(Character(.init(byte)))", at: index - 2)
    }
  }

  private func literalFollows(_ text: StaticString) -> Bool {
    let count = text.utf8CodeUnitCount
    return index + count <= bytes.count
      && text.withUTF8Buffer { $0.elementsEqual(bytes[index..<index + count]) }
  }

  private mutating func hex4() throws -> UInt32 {
    guard index + 4 <= bytes.count else { throw failure("the text ends early") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("expected four hex digits after \\u")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }
}
