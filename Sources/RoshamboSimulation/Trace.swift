/// What a simulation did, step by step: a hash of every line and frame (the same seed
/// and code give the same hash) and the last lines, to print around a failure.
///
/// Invariant: the hash covers everything ever added, in order; the kept lines are the
/// most recent ``keep``.
public struct Trace: Sendable {
  private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  private var lines: [String] = []
  private var next = 0
  public private(set) var bytes = 0
  /// Lines kept for printing.
  public let keep: Int

  public init(keep: Int = 400) { self.keep = keep }

  mutating func note(_ line: @autoclosure () -> String) {
    let text = line()
    add(Array(text.utf8))
    if lines.count < keep {
      lines.append(text)
    } else {
      lines[next] = text
      next = (next + 1) % keep
    }
  }

  mutating func add(_ data: [UInt8]) {
    bytes += data.count
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
  }

  /// The hash of the whole trace, as 16 hex digits.
  public var digest: String {
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The most recent lines, oldest first.
  public var recent: [String] { Array(lines[next...] + lines[..<next]) }
}
