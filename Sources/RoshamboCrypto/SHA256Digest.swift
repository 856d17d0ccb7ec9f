import COpenSSL

/// SHA-256 through the system's OpenSSL, for what the game hashes besides certificates
/// (resume tokens at rest).
///
/// Invariant: ``hex(_:)`` is always 64 lower-case hex digits.
public enum SHA256Digest {
  /// The 32-byte digest of `bytes`.
  public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let input = Array(bytes)
    let ok = input.withUnsafeBytes { input in
      output.withUnsafeMutableBytes { out in
        EVP_Digest(
          input.baseAddress, input.count,
          out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, EVP_sha256(), nil)
      }
    }
    precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
    return output
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
