import RoshamboGame

/// An `error` message's `code`: each code of the contract is spelled once, here, and the
/// server, the client and the tests all name it by its constant. A code a newer server
/// sends that this version does not know is kept as it came.
///
/// Invariant: ``contract`` lists exactly the codes `docs/PROTOCOL.md` documents.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public var description: String { rawValue }

  public static let badFrame = ErrorCode(rawValue: "bad_frame")
  public static let badMessage = ErrorCode(rawValue: "bad_message")
  public static let unsupportedProtocol = ErrorCode(rawValue: "unsupported_protocol")
  public static let helloFirst = ErrorCode(rawValue: "hello_first")
  public static let roomFull = ErrorCode(rawValue: "room_full")
  public static let noSuchRoom = ErrorCode(rawValue: "no_such_room")
  public static let badToken = ErrorCode(rawValue: "bad_token")
  public static let wrongRound = ErrorCode(rawValue: "wrong_round")
  public static let alreadyChosen = ErrorCode(rawValue: "already_chosen")
  public static let invalidWeapon = ErrorCode(rawValue: "invalid_weapon")
  public static let notPlaying = ErrorCode(rawValue: "not_playing")
  public static let rateLimited = ErrorCode(rawValue: "rate_limited")
  public static let serverFull = ErrorCode(rawValue: "server_full")
  public static let unavailable = ErrorCode(rawValue: "unavailable")
  public static let timeout = ErrorCode(rawValue: "timeout")
  public static let fairRoom = ErrorCode(rawValue: "fair_room")
  public static let notFair = ErrorCode(rawValue: "not_fair")
  public static let noSuchPlayer = ErrorCode(rawValue: "no_such_player")
  public static let busy = ErrorCode(rawValue: "busy")
  public static let noSuchChallenge = ErrorCode(rawValue: "no_such_challenge")
  public static let challengeLimit = ErrorCode(rawValue: "challenge_limit")
  public static let tournamentClosed = ErrorCode(rawValue: "tournament_closed")
  public static let nameTaken = ErrorCode(rawValue: "name_taken")
  public static let noSuchMatch = ErrorCode(rawValue: "no_such_match")
  public static let closing = ErrorCode(rawValue: "closing")
  public static let matchReady = ErrorCode(rawValue: "match_ready")

  /// Every code of the contract, in the order `docs/PROTOCOL.md` lists them.
  public static let contract: [ErrorCode] = [
    .badFrame, .badMessage, .unsupportedProtocol, .helloFirst, .roomFull, .noSuchRoom,
    .badToken, .wrongRound, .alreadyChosen, .invalidWeapon, .notPlaying, .rateLimited,
    .serverFull, .unavailable, .timeout, .fairRoom, .notFair, .noSuchPlayer, .busy,
    .noSuchChallenge, .challengeLimit, .tournamentClosed, .nameTaken, .noSuchMatch, .closing,
    .matchReady,
  ]

  /// The code for a refusal by the game's rules. A stale refusal (a timer whose moment
  /// has passed) is never sent; if it were, the seat could not act now: `not_playing`.
  public init(_ refusal: Refusal) {
    switch refusal {
    case .roomFull, .spectatorsFull: self = .roomFull
    case .noSuchRoom: self = .noSuchRoom
    case .wrongRound: self = .wrongRound
    case .alreadyChosen: self = .alreadyChosen
    case .invalidWeapon: self = .invalidWeapon
    case .notPlaying, .stale: self = .notPlaying
    case .fairRoom: self = .fairRoom
    case .notFair: self = .notFair
    case .reservedRoomName: self = .badMessage
    case .noSuchPlayer: self = .noSuchPlayer
    case .busy: self = .busy
    case .noSuchChallenge: self = .noSuchChallenge
    case .challengeLimit: self = .challengeLimit
    case .tournamentClosed: self = .tournamentClosed
    case .nameTaken: self = .nameTaken
    }
  }
}
