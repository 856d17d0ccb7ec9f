import RoshamboCrypto
import RoshamboGame

extension Commitment {
  /// The commitment (64 lower-case hex digits) to `weapon` with `nonce` for a seat's
  /// round in a room: SHA-256 over ``message(room:round:seat:weapon:nonce:)``.
  public static func digest(
    room: String, round: Int, seat: Seat, weapon: Weapon, nonce: [UInt8]
  ) -> String {
    hex(
      SHA256Digest.digest(
        message(room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)))
  }

  /// Whether `weapon` and `nonce` (hex) are what `commitment` (hex) bound the seat to,
  /// compared in constant time.
  public static func verify(
    _ commitment: String, room: String, round: Int, seat: Seat, weapon: Weapon, nonce: String
  ) -> Bool {
    guard let expected = bytes(ofHex: commitment), let nonceBytes = bytes(ofHex: nonce) else {
      return false
    }
    let actual = SHA256Digest.digest(
      message(room: room, round: round, seat: seat, weapon: weapon, nonce: nonceBytes))
    return SecureRandom.constantTimeEqual(expected, actual)
  }

  /// A fresh nonce: 32 bytes from OpenSSL's `RAND_bytes`.
  public static func makeNonce() -> [UInt8] { SecureRandom.bytes(32) }
}
