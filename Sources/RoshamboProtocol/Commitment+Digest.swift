import RoshamboCrypto
import RoshamboGame

extension Commitment {
  /// The commitment (64 lower-case hex digits) to `weapon` with `nonce` for a seat's
  /// round in a room: SHA-256 over ``message(room:round:seat:weapon:nonce:)``, built on
  /// the stack.
  public static func digest(
    room: String, round: Int, seat: Seat, weapon: Weapon, nonce: [UInt8]
  ) -> String {
    precondition(nonce.count == 32, "a commitment's nonce is 32 bytes")
    return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { digest in
      _ = withMessage(
        room: room, round: round, seat: seat, weapon: weapon,
        nonce: { part in
          part.copyBytes(from: nonce)
          return true
        }, hashedInto: digest)
      return hex(UnsafeRawBufferPointer(digest))
    }
  }

  /// Whether `weapon` and `nonce` (hex) are what `commitment` (hex) bound the seat to,
  /// compared in constant time. The server checks every reveal so: the nonce's digits are
  /// read straight into the message and the digests compared on the stack, with no
  /// array or string made.
  public static func verify(
    _ commitment: String, room: String, round: Int, seat: Seat, weapon: Weapon, nonce: String
  ) -> Bool {
    withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { both in
      let expected = UnsafeMutableRawBufferPointer(rebasing: both[0..<32])
      let actual = UnsafeMutableRawBufferPointer(rebasing: both[32..<64])
      guard readHex256(commitment, into: expected),
        withMessage(
          room: room, round: round, seat: seat, weapon: weapon,
          nonce: { readHex256(nonce, into: $0) }, hashedInto: actual)
      else { return false }
      return SecureRandom.constantTimeEqual(
        UnsafeRawBufferPointer(expected), UnsafeRawBufferPointer(actual))
    }
  }

  /// A fresh nonce: 32 bytes from OpenSSL's `RAND_bytes`.
  public static func makeNonce() -> [UInt8] { SecureRandom.bytes(32) }

  /// Builds ``message(room:round:seat:weapon:nonce:)`` on the stack, its last 32 bytes
  /// written by `nonce` (false: no message), and writes its SHA-256 digest to `digest`.
  /// Returns whether it did.
  private static func withMessage(
    room: String, round: Int, seat: Seat, weapon: Weapon,
    nonce: (UnsafeMutableRawBufferPointer) -> Bool,
    hashedInto digest: UnsafeMutableRawBufferPointer
  ) -> Bool {
    // Each part is followed by a zero byte; short ones (a round, a seat) are small
    // strings, made without allocating.
    let parts = (domain, room, round.description, seat.rawValue.description, weapon.rawValue)
    let count =
      parts.0.utf8.count + parts.1.utf8.count + parts.2.utf8.count + parts.3.utf8.count
      + parts.4.utf8.count + 5 + 32
    return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { message in
      var at = 0
      func append(_ text: String) {
        for byte in text.utf8 {
          message[at] = byte
          at += 1
        }
        message[at] = 0
        at += 1
      }
      append(parts.0)
      append(parts.1)
      append(parts.2)
      append(parts.3)
      append(parts.4)
      guard nonce(UnsafeMutableRawBufferPointer(rebasing: message[at...])) else { return false }
      SHA256Digest.digest(UnsafeRawBufferPointer(message), into: digest)
      return true
    }
  }
}
