import COpenSSL

/// SHA-256 through the system's OpenSSL, for what the game hashes besides certificates
/// (resume tokens at rest, fair rooms' commitments).
///
/// Invariant: ``hex(_:)`` is always 64 lower-case hex digits.
public enum SHA256Digest {
  /// OpenSSL 3's SHA-256 fetched once: `EVP_sha256()` alone makes every digest look its
  /// implementation up again in the provider's tables (about half the cost of hashing a
  /// commitment). A fetched method is read-only, so any thread may use it.
  nonisolated(unsafe) private static let method: OpaquePointer = {
    guard let method = EVP_MD_fetch(nil, "SHA256", nil) else {
      preconditionFailure("OpenSSL has no SHA-256")
    }
    return method
  }()

  /// The 32-byte digest of `bytes`.
  public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: 32) { output, count in
      let done: Void? = bytes.withContiguousStorageIfAvailable { input in
        digest(UnsafeRawBufferPointer(input), into: UnsafeMutableRawBufferPointer(output))
      }
      if done == nil {
        Array(bytes).withUnsafeBytes { digest($0, into: UnsafeMutableRawBufferPointer(output)) }
      }
      count = 32
    }
  }

  /// Writes the 32-byte digest of `input` to the start of `output` (at least 32 bytes),
  /// allocating nothing.
  public static func digest(
    _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) {
    precondition(output.count >= 32, "a SHA-256 digest needs 32 bytes")
    var length: UInt32 = 0
    let ok = EVP_Digest(
      input.baseAddress, input.count, output.baseAddress!.assumingMemoryBound(to: UInt8.self),
      &length, method, nil)
    precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
  }

  /// The digest of `text`'s UTF-8 bytes, as lower-case hex.
  public static func hex(_ text: String) -> String {
    let table = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for byte in digest(Array(text.utf8)) {
      out.append(table[Int(byte >> 4)])
      out.append(table[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
