import RoshamboGame
import RoshamboProtocol

/// What a connection hands the hub: every client message but `ping`, which its
/// ``ConnectionHandler`` answers itself without a trip to the hub's loop.
///
/// Invariant: each case is the ``ClientMessage`` case of the same name, unchanged, but
/// for `hello`'s `identity`: the key the connection presented in its TLS handshake,
/// added by the connection (nil for a client that presented none).
enum PlayerRequest: Sendable, Equatable {
  case hello(
    protocol: Int, name: String, role: ClientMessage.Role, room: String?, resume: String?,
    fair: Bool? = nil, challenges: Bool = false, identity: String? = nil, id: Int?)
  case choose(round: Int, weapon: Weapon, id: Int?)
  case commit(round: Int, digest: String, id: Int?)
  case reveal(round: Int, weapon: Weapon, nonce: String, id: Int?)
  case rematch(id: Int?)
  case leave(id: Int?)
  case challenge(name: String, bestOf: Int?, ruleset: Ruleset.ID?, fair: Bool, id: Int?)
  case accept(challenge: Int, id: Int?)
  case decline(challenge: Int, block: Bool = false, id: Int?)
  case enter(id: Int?)
  case withdraw(id: Int?)
  case match(match: Int, id: Int?)

  /// The request a message makes of the hub, or nil for `ping`; a `hello` carries
  /// `identity`.
  init?(_ message: ClientMessage, identity: String? = nil) {
    switch message {
    case .hello(
      let version, let name, let role, let room, let resume, let fair, let challenges, _, let id):
      self = .hello(
        protocol: version, name: name, role: role, room: room, resume: resume, fair: fair,
        challenges: challenges, identity: identity, id: id)
    case .choose(let round, let weapon, let id):
      self = .choose(round: round, weapon: weapon, id: id)
    case .commit(let round, let digest, let id):
      self = .commit(round: round, digest: digest, id: id)
    case .reveal(let round, let weapon, let nonce, let id):
      self = .reveal(round: round, weapon: weapon, nonce: nonce, id: id)
    case .rematch(let id): self = .rematch(id: id)
    case .leave(let id): self = .leave(id: id)
    case .challenge(let name, let bestOf, let ruleset, let fair, let id):
      self = .challenge(name: name, bestOf: bestOf, ruleset: ruleset, fair: fair, id: id)
    case .accept(let challenge, let id): self = .accept(challenge: challenge, id: id)
    case .decline(let challenge, let block, let id):
      self = .decline(challenge: challenge, block: block, id: id)
    case .enter(let id): self = .enter(id: id)
    case .withdraw(let id): self = .withdraw(id: id)
    case .match(let match, let id): self = .match(match: match, id: id)
    case .ping: return nil
    }
  }
}
