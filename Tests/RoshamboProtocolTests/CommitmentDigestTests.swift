import RoshamboCrypto
import RoshamboGame
import RoshamboProtocol
import Testing

/// A commitment made and checked on the stack is the one docs/PROTOCOL.md describes:
/// SHA-256 over `Commitment.message`, byte for byte, and a reveal is refused for every
/// change to what it binds.
@Suite("Commitments: digest and check")
struct CommitmentDigestTests {
  @Test("known answers, computed outside Swift (Python's hashlib)")
  func knownAnswers() {
    #expect(
      Commitment.digest(
        room: "probe", round: 2, seat: .two, weapon: .rock,
        nonce: [UInt8](repeating: 7, count: 32))
        == "393d14e1c79419c436f17691658063753dc1a0fdcd312922b43645a1de5cc04c")
    #expect(
      Commitment.digest(
        room: "salle à manger du château", round: -3, seat: .one, weapon: .spock,
        nonce: (0..<32).map(UInt8.init))
        == "b78605a64bacf1dc45c4fc74027418fde74170960af3ab923314b9cba6a18da9")
  }

  @Test("the digest is SHA-256 of the message, for short and long rooms and any round")
  func digestIsOfTheMessage() {
    let rooms = ["", "r", "probe", "a room named at length, past fifteen bytes", "🎲🎲"]
    let rounds = [0, 1, 9, 10, 99, 12_345, -1, Int.max, Int.min]
    for (index, room) in rooms.enumerated() {
      for round in rounds {
        for seat in Seat.allCases {
          for weapon in Weapon.allCases {
            let nonce = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &+ round) }
            let message = Commitment.message(
              room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
            #expect(
              Commitment.digest(room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
                == Commitment.hex(SHA256Digest.digest(message)))
          }
        }
      }
    }
  }

  @Test("a reveal holds only for exactly what was committed, in 64 lower-case hex digits")
  func checkRefusesEveryChange() {
    let nonce = (0..<32).map { UInt8($0 * 5 % 256) }
    let hex = Commitment.hex(nonce)
    let digest = Commitment.digest(room: "den", round: 4, seat: .one, weapon: .paper, nonce: nonce)
    func holds(
      _ commitment: String = digest, room: String = "den", round: Int = 4, seat: Seat = .one,
      weapon: Weapon = .paper, nonce: String = hex
    ) -> Bool {
      Commitment.verify(
        commitment, room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
    }
    #expect(holds())
    #expect(!holds(room: "den2"))
    #expect(!holds(room: "de"))
    #expect(!holds(round: 5))
    #expect(!holds(round: -4))
    #expect(!holds(seat: .two))
    #expect(!holds(weapon: .rock))
    let otherNonce = Commitment.hex(nonce.map { $0 ^ 1 })
    #expect(!holds(nonce: otherNonce))
    #expect(!holds(nonce: hex.uppercased()))
    #expect(!holds(nonce: String(hex.dropLast())))
    #expect(!holds(nonce: hex + "0"))
    #expect(!holds(nonce: String(hex.dropLast()) + "g"))
    #expect(!holds(nonce: String(hex.dropLast(2)) + "é"))
    #expect(!holds(digest.uppercased()))
    #expect(!holds(String(digest.dropLast()) + (digest.last == "0" ? "1" : "0")))
    #expect(!holds(String(digest.dropLast())))
    #expect(!holds(""))
    // The digest and the nonce swapped: both well-formed, neither what was committed.
    #expect(!holds(hex, nonce: digest))
  }
}
