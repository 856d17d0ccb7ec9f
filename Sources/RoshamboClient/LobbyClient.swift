import RoshamboProtocol

/// What is left of the lobby's hand-written follower: the wording of its requests, which
/// the simulator's people (`SimulatedPlayer`) still use. The real clients follow the lobby
/// through ``PlayerCore`` (its hello is ``PlayerConfiguration/greeting(id:resume:room:)``);
/// this goes once the simulator's people are ``PlayerCore``s too (issue 48).
public enum LobbyClient {
  /// The lobby's messages as one connection writes them: each with the next `id`.
  ///
  /// Invariant: every message has an `id` one higher than the one before, from 1 (the
  /// `hello`).
  public struct Requests: Equatable, Sendable {
    public let name: String
    public let takesChallenges: Bool
    /// Whether this person is (or is about to be) an entrant of the tournament.
    public private(set) var entrant: Bool
    private var lastID = 0

    public init(name: String, takesChallenges: Bool, entrant: Bool) {
      self.name = name
      self.takesChallenges = takesChallenges
      self.entrant = entrant
    }

    private mutating func nextID() -> Int {
      lastID += 1
      return lastID
    }

    /// `hello` with role `lobby`, asking for patches (``LobbyReplica`` applies them);
    /// `keepalive`: the pings promised, if any.
    public mutating func hello(keepalive: Duration?) -> ClientMessage {
      return .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: true, challenges: takesChallenges, keepalive: keepalive?.promisedSeconds,
        patches: true, id: nextID())
    }

    /// `lobbyResync`: a patch did not follow from the view this follower has.
    public mutating func resync() -> ClientMessage {
      .lobbyResync(id: nextID())
    }

    public mutating func challenge(_ person: String, fair: Bool) -> ClientMessage {
      .challenge(name: person, bestOf: nil, ruleset: nil, fair: fair, id: nextID())
    }

    public mutating func accept(_ challenge: Int) -> ClientMessage {
      .accept(challenge: challenge, id: nextID())
    }

    public mutating func decline(_ challenge: Int, forTheEvening: Bool) -> ClientMessage {
      .decline(challenge: challenge, block: forTheEvening, id: nextID())
    }

    /// `enter`; from now a seat may come before a view lists the entry.
    public mutating func enterTournament() -> ClientMessage {
      entrant = true
      return .enter(id: nextID())
    }

    public mutating func record(of match: Int) -> ClientMessage {
      .match(match: match, id: nextID())
    }
  }
}
