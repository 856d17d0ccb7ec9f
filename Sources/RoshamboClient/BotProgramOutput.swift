/// A bot program's standard output cut into lines, within an allowance: bytes in, whole
/// lines out, and a flood once the program has written more than the allowance since it
/// was last renewed (each `pick` line renews it).
///
/// Invariant: it never holds more than `allowance` bytes, however much the program
/// writes: once flooded it keeps nothing and returns nothing more.
public struct BotProgramOutput: Sendable {
  /// Bytes the program may write between two renewals.
  public let allowance: Int
  public private(set) var flooded = false
  private var partial: [UInt8] = []
  private var spent = 0

  public init(allowance: Int) {
    self.allowance = allowance
  }

  /// The whole lines `bytes` completes (without their newlines), and whether they took
  /// the program past its allowance (then nothing after the allowance is returned).
  public mutating func take(_ bytes: some Collection<UInt8>) -> (lines: [String], flooded: Bool) {
    guard !flooded else { return ([], false) }
    var lines: [String] = []
    var rest = bytes[...]
    while !rest.isEmpty {
      let room = allowance - spent
      let end = rest.firstIndex(of: UInt8(ascii: "\n"))
      let length = end.map { rest.distance(from: rest.startIndex, to: $0) + 1 } ?? rest.count
      guard length <= room else {
        flooded = true
        partial = []
        return (lines, true)
      }
      spent += length
      guard let end else {
        partial.append(contentsOf: rest)
        break
      }
      partial.append(contentsOf: rest[..<end])
      lines.append(String(decoding: partial, as: UTF8.self))
      partial.removeAll(keepingCapacity: true)
      rest = rest[rest.index(after: end)...]
    }
    return (lines, false)
  }

  /// The program was asked for a pick: it may write `allowance` bytes again (a line it
  /// has begun counts from here).
  public mutating func renew() {
    spent = partial.count
  }
}
