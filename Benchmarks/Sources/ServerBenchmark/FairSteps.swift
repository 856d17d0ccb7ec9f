import BenchmarkSupport
import RoshamboGame
import RoshamboProtocol

/// Prints what each step of a fair round costs on its own, in a tight loop (µs a call,
/// caches warm): the client's nonce and commitment, the frames, the server's check of a
/// reveal, and a fair room's state beside an ordinary room's at the same point.
func fairStepCosts() {
  func cost(_ label: String, _ body: () -> Void) { printCost(label, width: 52, runs: 20_000, body) }
  let nonce = Commitment.makeNonce()
  let nonceHex = Commitment.hex(nonce)
  let digest = Commitment.digest(
    room: "probe", round: 2, seat: .two, weapon: .rock, nonce: nonce)
  let commitBytes = ClientMessage.commit(round: 2, digest: digest, id: nil).encoded()
  let revealBytes = ClientMessage.reveal(round: 2, weapon: .rock, nonce: nonceHex, id: nil)
    .encoded()
  print("4a. Fair rounds, each step alone, µs a call")
  cost("client: draw a nonce (RAND_bytes, 32)") { _ = Commitment.makeNonce() }
  cost("client: nonce as hex") { _ = Commitment.hex(nonce) }
  cost("client: commitment (message, SHA-256, hex)") {
    _ = Commitment.digest(room: "probe", round: 2, seat: .two, weapon: .rock, nonce: nonce)
  }
  cost("client: encode commit") {
    _ = ClientMessage.commit(round: 2, digest: digest, id: 9).encoded()
  }
  cost("client: encode reveal") {
    _ = ClientMessage.reveal(round: 2, weapon: .rock, nonce: nonceHex, id: 9).encoded()
  }
  cost("server: decode commit") { _ = ClientMessage.decode(commitBytes) }
  cost("server: decode reveal") { _ = ClientMessage.decode(revealBytes) }
  cost("server: check a reveal (Commitment.verify)") {
    _ = Commitment.verify(
      digest, room: "probe", round: 2, seat: .two, weapon: .rock, nonce: nonceHex)
  }
  // A room in round 3 of a best-of-3 (two rounds in its history) as each seat gets it
  // once both have picked: an ordinary room's state, and a fair room's showing both
  // commitments (its history also holds each round's commitments and nonces).
  func room(fair: Bool) -> RoomState {
    var room = RoomState(name: "probe", settings: .init(fair: fair))
    room.apply(.playerJoined(name: "probe-a", token: "a", at: 0))
    room.apply(.playerJoined(name: "probe-b", token: "b", at: 0))
    let plan: [(Weapon, Weapon)] = [(.rock, .scissors), (.scissors, .rock), (.paper, .rock)]
    for (round, weapons) in zip(1..., plan) {
      let picks = [(Seat.one, weapons.0), (.two, weapons.1)]
      guard fair else {
        for (seat, weapon) in picks where round < 3 {
          room.apply(.chose(seat: seat, round: round, weapon: weapon, at: 1))
        }
        continue
      }
      let nonces = picks.map { _ in Commitment.makeNonce() }
      for ((seat, weapon), nonce) in zip(picks, nonces) {
        let digest = Commitment.digest(
          room: "probe", round: round, seat: seat, weapon: weapon, nonce: nonce)
        room.apply(.committed(seat: seat, round: round, digest: digest, at: 1))
      }
      for ((seat, weapon), nonce) in zip(picks, nonces) where round < 3 {
        room.apply(
          .revealed(
            seat: seat, round: round, weapon: weapon, nonce: Commitment.hex(nonce),
            matches: true, at: 1))
      }
    }
    return room
  }
  let ordinary = room(fair: false)
  let fair = room(fair: true)
  for (label, room) in [("ordinary", ordinary), ("fair", fair)] {
    let state = ServerMessage.state(seq: room.version, view: room.view(for: .one))
    let bytes = state.encoded()
    cost("server: encode a \(label) state (\(bytes.count) bytes)") { _ = state.encoded() }
    cost("client: decode a \(label) state") { _ = try? ServerMessage.decode(bytes) }
  }
  print("")
}
