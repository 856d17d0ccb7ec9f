/// The commit–reveal scheme of fair rooms, as data: what a commitment is made of and the
/// form of its parts. Hashing is not here (the game has no cryptography); clients and the
/// server compute the digest with the system's OpenSSL (`Commitment.digest`, in
/// `RoshamboProtocol`, over `RoshamboCrypto.SHA256Digest`).
///
/// A seat's commitment for a round is the SHA-256 digest, as 64 lower-case hex digits, of
/// these bytes, parts separated by one zero byte:
///
///     "roshambo-commit-v1" 0x00 room 0x00 round 0x00 seat 0x00 weapon 0x00 nonce
///
/// where `room` is the room's name (UTF-8), `round` and `seat` are decimal ASCII ("3",
/// "1"), `weapon` is the weapon's wire name ("rock") and `nonce` is 32 random bytes (raw,
/// not hex). Binding room, round and seat means a commitment cannot be replayed in
/// another round or passed off as the other seat's.
///
/// Invariant: ``isHex256(_:)`` accepts exactly 64 characters from `0-9a-f`.
public enum Commitment {
  /// The first part of every committed message.
  public static let domain = "roshambo-commit-v1"

  /// The bytes a commitment is the SHA-256 digest of.
  public static func message(
    room: String, round: Int, seat: Seat, weapon: Weapon, nonce: [UInt8]
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    for part in [domain, room, String(round), String(seat.rawValue), weapon.rawValue] {
      bytes += Array(part.utf8)
      bytes.append(0)
    }
    return bytes + nonce
  }

  /// Whether `text` is 32 bytes as 64 lower-case hex digits (a digest or a nonce).
  public static func isHex256(_ text: String) -> Bool {
    guard text.utf8.count == 64 else { return false }
    // Every view of a fair room holds a few of these: read as contiguous bytes, not
    // through the UTF-8 view's iterator.
    var text = text
    return text.withUTF8 { bytes in
      bytes.allSatisfy {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
          || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
      }
    }
  }

  /// The bytes of 64 lower-case hex digits, or nil.
  public static func bytes(ofHex text: String) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: 32)
    guard bytes.withUnsafeMutableBytes({ readHex256(text, into: $0) }) else { return nil }
    return bytes
  }

  /// Reads `text`, 64 lower-case hex digits, as 32 bytes into the start of `bytes` (at
  /// least 32), allocating nothing; false (and `bytes` unspecified) if it is anything else.
  public static func readHex256(_ text: String, into bytes: UnsafeMutableRawBufferPointer)
    -> Bool
  {
    guard text.utf8.count == 64, bytes.count >= 32 else { return false }
    // The digits as contiguous bytes: the UTF-8 view's iterator cost more than the rest
    // of the server's check of a reveal.
    var text = text
    return text.withUTF8 { digits in
      var at = 0
      var high: UInt8?
      for digit in digits {
        let low: UInt8
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): low = digit &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): low = digit &- UInt8(ascii: "a") &+ 10
        default: return false
        }
        if let first = high {
          bytes[at] = first << 4 | low
          at += 1
          high = nil
        } else {
          high = low
        }
      }
      return true
    }
  }

  /// Two lower-case hex digits for each byte.
  public static func hex(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hex($0) }
  }

  /// Two lower-case hex digits for each byte, read in place.
  public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
      let digits: StaticString = "0123456789abcdef"
      digits.withUTF8Buffer { digits in
        for (index, byte) in bytes.enumerated() {
          out[2 * index] = digits[Int(byte >> 4)]
          out[2 * index + 1] = digits[Int(byte & 0x0F)]
        }
      }
      return 2 * bytes.count
    }
  }
}
