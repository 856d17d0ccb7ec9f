/// Why the rules refuse an action. A refused action changes nothing, not even the
/// version. Each case but `stale` maps to an error code of the wire contract
/// (`RoshamboProtocol.ErrorCode`).
///
/// Invariant: `stale` is only ever the answer to an internal action (a timer, a dropped
/// connection) whose moment has passed, and is never sent to a client.
public enum Refusal: Error, Sendable, Equatable {
  case roomFull
  /// The room has as many spectators as it takes.
  case spectatorsFull(Int)
  case noSuchRoom(String)
  case wrongRound(current: Int)
  case alreadyChosen
  case invalidWeapon(Weapon, Ruleset.ID)
  /// The seat cannot act now: the match is not running, or the seat is not held.
  case notPlaying(String)
  /// A fair room takes `commit` and `reveal`, not `choose`, and only from clients that
  /// can play it; the sentence says which.
  case fairRoom(String)
  /// `commit` and `reveal` belong to fair rooms; this one is ordinary.
  case notFair
  /// A named join would create a room with a name only the server gives (`quick-N`,
  /// `duel-N`).
  case reservedRoomName(String)
  /// Nobody by that name is in the lobby to take a challenge (the sentence says more).
  case noSuchPlayer(String)
  /// The person challenged cannot take it now: playing, watching, or too many waiting.
  case busy(String)
  /// No challenge with this id waits for this person's answer.
  case noSuchChallenge(Int)
  /// Too many challenges from this person: pending, repeated, or in the last minute.
  case challengeLimit(String)
  /// No tournament takes this entry now (none, started, full), or it cannot do this.
  case tournamentClosed(String)
  /// Another entrant of the tournament has this name.
  case nameTaken(String)
  /// A timer or connection event that no longer applies.
  case stale(String)

  /// Which refusal this is, without its details (what tests and counters compare).
  public enum Kind: String, Sendable, CaseIterable {
    case roomFull, spectatorsFull, noSuchRoom, wrongRound, alreadyChosen, invalidWeapon
    case notPlaying, fairRoom, notFair, reservedRoomName, noSuchPlayer, busy, noSuchChallenge
    case challengeLimit, tournamentClosed, nameTaken, stale
  }

  public var kind: Kind {
    switch self {
    case .roomFull: .roomFull
    case .spectatorsFull: .spectatorsFull
    case .noSuchRoom: .noSuchRoom
    case .wrongRound: .wrongRound
    case .alreadyChosen: .alreadyChosen
    case .invalidWeapon: .invalidWeapon
    case .notPlaying: .notPlaying
    case .fairRoom: .fairRoom
    case .notFair: .notFair
    case .reservedRoomName: .reservedRoomName
    case .noSuchPlayer: .noSuchPlayer
    case .busy: .busy
    case .noSuchChallenge: .noSuchChallenge
    case .challengeLimit: .challengeLimit
    case .tournamentClosed: .tournamentClosed
    case .nameTaken: .nameTaken
    case .stale: .stale
    }
  }

  /// A sentence for people, saying what was wrong and, where it helps, what to do.
  public var message: String {
    switch self {
    case .roomFull: "This room already has two players; join as a spectator or pick another room."
    case .spectatorsFull(let limit):
      "This room has its maximum of \(limit) spectators; try again later or watch another room."
    case .noSuchRoom(let name): "There is no room named \(name)."
    case .wrongRound(let current): "That pick is not for the current round (round \(current))."
    case .alreadyChosen: "You already chose this round."
    case .invalidWeapon(let weapon, let ruleset):
      "\(weapon.rawValue) is not a weapon in the \(ruleset.rawValue) ruleset."
    case .notPlaying(let why): why
    case .fairRoom(let why): why
    case .notFair:
      "This room is not fair (commit–reveal): pick a weapon without committing to it first."
    case .reservedRoomName(let name):
      "Room names like \(name) are given by the server (quick match, challenges); join without naming a room, or pick another name."
    case .noSuchPlayer(let why), .busy(let why), .challengeLimit(let why),
      .tournamentClosed(let why), .nameTaken(let why):
      why
    case .noSuchChallenge(let id):
      "Challenge \(id) is not waiting for your answer: it was answered, withdrawn or expired."
    case .stale(let why): why
    }
  }
}
