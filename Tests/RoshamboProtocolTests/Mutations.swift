/// The inputs the differential tests give a hand-written decoder and its `JSONDecoder`
/// reference: every truncation of a sample, and every change of one of its bytes to a
/// byte that matters to JSON (structure, numbers, literals, controls, broken UTF-8).
enum Mutations {
  static let replacements =
    Array(#"""\,:{}[]0-1e.n tfx"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]

  /// Every proper prefix of `bytes`, the empty one included.
  static func truncations(of bytes: [UInt8]) -> [[UInt8]] {
    (0..<bytes.count).map { Array(bytes[..<$0]) }
  }

  /// `bytes` with one byte replaced, for every position and replacement that differs.
  static func byteChanges(of bytes: [UInt8]) -> [[UInt8]] {
    bytes.indices.flatMap { position in
      replacements.filter { $0 != bytes[position] }.map { byte in
        var mutated = bytes
        mutated[position] = byte
        return mutated
      }
    }
  }
}
