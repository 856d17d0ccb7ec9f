import COpenSSL

/// Randomness and comparisons for secrets, from the system's OpenSSL.
///
/// Invariant: ``bytes(_:)`` returns exactly `count` bytes from `RAND_bytes` or stops the
/// program (a secret made from a failed generator must never be used).
public enum SecureRandom {
  /// `count` bytes from OpenSSL's CSPRNG.
  public static func bytes(_ count: Int) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: count)
    let ok = output.withUnsafeMutableBytes { buffer in
      RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count))
    }
    precondition(ok == 1, "OpenSSL's RAND_bytes failed")
    return output
  }

  /// Whether two byte strings are equal, in time that depends only on their length
  /// (`CRYPTO_memcmp`), so comparing a digest leaks nothing through timing.
  public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBytes { x in b.withUnsafeBytes { y in constantTimeEqual(x, y) } }
  }

  /// The same comparison over bytes in place (a digest on the stack).
  public static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer)
    -> Bool
  {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
  }
}
