import RoshamboGame
import RoshamboJSON

/// A message from a client, as the contract defines it, already checked: names keep
/// ``PlayerName``'s rule (and are in NFC), rooms match `[A-Za-z0-9_-]{1,32}`, weapons are
/// known.
///
/// Invariant: a client message never names a seat; the server knows it from the
/// connection.
public enum ClientMessage: Sendable, Equatable {
  public enum Role: String, Sendable, Equatable {
    case player
    case spectator
    /// Follows the lobby: who is here, the live rooms, the leaderboard (`lobby`
    /// messages); in no room.
    case lobby
  }

  /// `fair`: nil from a client that does not know fair rooms (it cannot play one); false
  /// from one that can; true asks for a fair room when this hello creates the room.
  /// `challenges`: a lobby follower that can be challenged and seated from the lobby
  /// (it understands `challenge` and a later `welcome`). `keepalive`: the seconds
  /// between this client's pings while it has nothing else to send (1 to 60); a
  /// connection that promised them and stays silent for three of them is taken for lost
  /// (``keepaliveLimit(for:idleLimit:)``), so that others see its trouble within seconds.
  /// `patches`: a lobby follower that takes `lobbyPatch` messages after its first view
  /// (and asks with `lobbyResync` when it is out of step).
  case hello(
    protocol: Int, name: String, role: Role, room: String?, resume: String?, fair: Bool? = nil,
    challenges: Bool = false, keepalive: Int? = nil, patches: Bool = false, id: Int?)
  case choose(round: Int, weapon: Weapon, id: Int?)
  /// In a fair room: the commitment (64 lower-case hex digits) for the round.
  case commit(round: Int, digest: String, id: Int?)
  /// In a fair room, once both commitments are in: the weapon and the nonce (64
  /// lower-case hex digits) committed to.
  case reveal(round: Int, weapon: Weapon, nonce: String, id: Int?)
  case rematch(id: Int?)
  case leave(id: Int?)
  case ping(id: Int?)
  /// From a lobby follower: challenge the person of that name in the lobby to a match
  /// (nil terms: the server's defaults for new rooms).
  case challenge(name: String, bestOf: Int?, ruleset: Ruleset.ID?, fair: Bool, id: Int?)
  /// From the one challenged: take challenge `challenge` (both are seated at once).
  case accept(challenge: Int, id: Int?)
  /// From the one challenged: refuse challenge `challenge`; `block` also refuses every
  /// later challenge from its challenger until the server restarts (extension: an older
  /// server ignores it and declines this one only).
  case decline(challenge: Int, block: Bool = false, id: Int?)
  /// From a lobby follower that takes challenges: enter the tournament taking entries.
  case enter(id: Int?)
  /// Take the entry back before the tournament starts.
  case withdraw(id: Int?)
  /// Ask for the record of the finished match numbered `match` (a `record` answers).
  case match(match: Int, id: Int?)
  /// From a lobby follower that takes patches: send the whole view again (a patch did
  /// not follow from the view it has).
  case lobbyResync(id: Int?)

  /// The message's `id`, echoed as `re` on an error it causes.
  public var id: Int? {
    switch self {
    case .hello(_, _, _, _, _, _, _, _, _, let id), .lobbyResync(let id), .choose(_, _, let id),
      .commit(_, _, let id),
      .reveal(_, _, _, let id), .rematch(let id), .leave(let id), .ping(let id),
      .challenge(_, _, _, _, let id), .accept(_, let id), .decline(_, _, let id), .enter(let id),
      .withdraw(let id), .match(_, let id):
      id
    }
  }

  /// The pings a `hello` promises, one at least every this many seconds; nil for a hello
  /// that promises none, and for every other message.
  public var promisedKeepalive: Int? {
    guard case .hello(_, _, _, _, _, _, _, let keepalive, _, _) = self else { return nil }
    return keepalive
  }

  // MARK: - Decoding

  /// The fields any client message may carry, each read only if it has its type.
  private struct Envelope {
    var type: String?
    var id: Int?
    var `protocol`: Int?
    var name: String?
    var role: String?
    var room: String?
    var resume: String?
    var round: Int?
    var weapon: String?
    var fair: Bool?
    var digest: String?
    var nonce: String?
    var challenges: Bool?
    var keepalive: Int?
    var patches: Bool?
    var challenge: Int?
    var block: Bool?
    var bestOf: Int?
    var ruleset: String?
    var match: Int?
  }

  /// The envelope's fields, in the order a wrong type among several is reported.
  private enum Field: String, CaseIterable, Comparable {
    case type, id, `protocol`, name, role, room, resume, round, weapon, fair, digest, nonce
    case challenges, challenge, bestOf, ruleset, match, keepalive, block, patches

    var isInteger: Bool {
      self == .id || self == .protocol || self == .round || self == .challenge || self == .bestOf
        || self == .match || self == .keepalive
    }
    var isBool: Bool {
      self == .fair || self == .challenges || self == .block || self == .patches
    }

    static func < (lhs: Field, rhs: Field) -> Bool {
      allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
  }

  /// How long a connection that promised pings every `keepalive` seconds may stay
  /// silent before it is taken for lost: three of them, at least 5 s, at most the
  /// server's idle limit (which also applies to a client that promised nothing).
  public static func keepaliveLimit(for keepalive: Int?, idleLimit: Int64) -> Int64 {
    guard let keepalive else { return idleLimit }
    return min(idleLimit, max(5, 3 * Int64(keepalive)))
  }

  /// Decodes one frame's payload. Not JSON, or not an object: `bad_frame` (fatal). A
  /// missing or ill-typed field or an unknown type: `bad_message`. An unknown weapon:
  /// `invalid_weapon`.
  public static func decode(_ bytes: some Collection<UInt8>) -> Result<ClientMessage, ProtocolError>
  {
    JSONReader.withBuffer(bytes) { decode($0) }
  }

  /// Decodes one frame's payload (see the generic overload): read with ``JSONReader``,
  /// the whole frame is checked as JSON before any field is judged, so a frame that is
  /// not JSON is `bad_frame` wherever its fault is.
  public static func decode(_ buffer: UnsafeRawBufferPointer) -> Result<
    ClientMessage, ProtocolError
  > {
    decodeReadingID(buffer).result
  }

  /// Decodes one frame's payload (see ``decode(_:)-(UnsafeRawBufferPointer)``), and
  /// returns the message's `id` too whenever it could be read, so that an error about
  /// the message can echo it as `re` even when the message itself is refused.
  public static func decodeReadingID(_ buffer: UnsafeRawBufferPointer) -> (
    result: Result<ClientMessage, ProtocolError>, id: Int?
  ) {
    var envelope = Envelope()
    var wrongType: Field?
    var seen: Set<Field> = []
    do {
      let isObject = try JSONReader.read(buffer) { reader in
        guard try reader.kind() == .object else {
          try reader.skipValue()
          return false
        }
        try reader.object { reader, key in
          // A repeated key counts once, the first time, as JSONDecoder read it.
          guard let field = Field(rawValue: key), seen.insert(field).inserted else {
            return try reader.skipValue()
          }
          let kind = try reader.kind()
          if kind == .null { return try reader.skipValue() }
          var integer: Int?
          var text: String?
          var flag: Bool?
          if field.isInteger, kind == .number {
            integer = try reader.exactInt()
          } else if field.isBool, kind == .bool {
            flag = try reader.bool()
          } else if !field.isInteger, !field.isBool, kind == .string {
            text = try reader.string()
          } else {
            try reader.skipValue()
          }
          guard integer != nil || text != nil || flag != nil else {
            wrongType = min(wrongType ?? field, field)
            return
          }
          switch field {
          case .type: envelope.type = text
          case .id: envelope.id = integer
          case .protocol: envelope.protocol = integer
          case .name: envelope.name = text
          case .role: envelope.role = text
          case .room: envelope.room = text
          case .resume: envelope.resume = text
          case .round: envelope.round = integer
          case .weapon: envelope.weapon = text
          case .fair: envelope.fair = flag
          case .digest: envelope.digest = text
          case .nonce: envelope.nonce = text
          case .challenges: envelope.challenges = flag
          case .challenge: envelope.challenge = integer
          case .bestOf: envelope.bestOf = integer
          case .ruleset: envelope.ruleset = text
          case .match: envelope.match = integer
          case .keepalive: envelope.keepalive = integer
          case .block: envelope.block = flag
          case .patches: envelope.patches = flag
          }
        }
        return true
      }
      guard isObject else {
        return (.failure(.badFrame("A frame must hold one JSON object.")), nil)
      }
    } catch {
      return (.failure(.badFrame("The frame is not valid UTF-8 JSON.")), nil)
    }
    if let field = wrongType {
      let what = field.isInteger ? "an integer" : field.isBool ? "true or false" : "a string"
      return (
        .failure(
          .badMessage("The field \(field.rawValue) has the wrong type: it must be \(what).")),
        envelope.id
      )
    }
    return (validate(envelope), envelope.id)
  }

  private static func validate(_ e: Envelope) -> Result<ClientMessage, ProtocolError> {
    guard let type = e.type else {
      return .failure(.badMessage("Every message needs a string field \"type\"."))
    }
    switch type {
    case "hello":
      guard let version = e.protocol else {
        return .failure(.badMessage("hello needs \"protocol\": \(WireProtocol.version)."))
      }
      guard let raw = e.name else {
        return .failure(.badMessage("hello needs a string \"name\"."))
      }
      let name: String
      switch PlayerName.normalize(raw) {
      case .success(let normalized): name = normalized
      case .failure(let problem):
        return .failure(.badMessage("The \"name\" is refused: \(problem)."))
      }
      let role: Role
      switch e.role {
      case nil: role = .player
      case let text?:
        guard let known = Role(rawValue: text) else {
          return .failure(
            .badMessage(
              "\"role\" must be \"player\", \"spectator\" or \"lobby\", not \"\(UntrustedText.escaped(text))\"."
            ))
        }
        role = known
      }
      if let room = e.room, !isValidRoom(room) {
        return .failure(.badMessage("\"room\" must be 1 to 32 of A-Z a-z 0-9 _ -."))
      }
      if role == .spectator, e.room == nil {
        return .failure(.badMessage("A spectator must name a \"room\" to watch."))
      }
      if role == .lobby, e.room != nil || e.resume != nil {
        return .failure(.badMessage("A lobby follower names no \"room\" and no \"resume\"."))
      }
      if let resume = e.resume, resume.isEmpty || resume.count > 128 {
        return .failure(.badMessage("\"resume\" must be the token the server gave you."))
      }
      if let keepalive = e.keepalive, !(1...60).contains(keepalive) {
        return .failure(.badMessage("\"keepalive\" must be 1 to 60 seconds between pings."))
      }
      if e.patches == true, role != .lobby {
        return .failure(
          .badMessage("Only a lobby follower (\"role\": \"lobby\") takes patches."))
      }
      if e.challenges == true, role != .lobby {
        return .failure(
          .badMessage("Only a lobby follower (\"role\": \"lobby\") takes challenges."))
      }
      return .success(
        .hello(
          protocol: version, name: name, role: role, room: e.room, resume: e.resume, fair: e.fair,
          challenges: e.challenges ?? false, keepalive: e.keepalive, patches: e.patches ?? false,
          id: e.id))
    case "choose":
      guard let round = e.round else {
        return .failure(.badMessage("choose needs an integer \"round\"."))
      }
      guard let text = e.weapon else {
        return .failure(.badMessage("choose needs a string \"weapon\"."))
      }
      guard let weapon = Weapon(rawValue: text) else {
        return .failure(
          ProtocolError(
            code: .invalidWeapon, message: "\"\(UntrustedText.escaped(text))\" is not a weapon."))
      }
      return .success(.choose(round: round, weapon: weapon, id: e.id))
    case "commit":
      guard let round = e.round else {
        return .failure(.badMessage("commit needs an integer \"round\"."))
      }
      guard let digest = e.digest, Commitment.isHex256(digest) else {
        return .failure(
          .badMessage("commit needs \"digest\": 64 lower-case hex digits (a SHA-256 digest)."))
      }
      return .success(.commit(round: round, digest: digest, id: e.id))
    case "reveal":
      guard let round = e.round else {
        return .failure(.badMessage("reveal needs an integer \"round\"."))
      }
      guard let text = e.weapon else {
        return .failure(.badMessage("reveal needs a string \"weapon\"."))
      }
      guard let weapon = Weapon(rawValue: text) else {
        return .failure(
          ProtocolError(
            code: .invalidWeapon, message: "\"\(UntrustedText.escaped(text))\" is not a weapon."))
      }
      guard let nonce = e.nonce, Commitment.isHex256(nonce) else {
        return .failure(.badMessage("reveal needs \"nonce\": 64 lower-case hex digits."))
      }
      return .success(.reveal(round: round, weapon: weapon, nonce: nonce, id: e.id))
    case "challenge":
      guard let raw = e.name else {
        return .failure(.badMessage("challenge needs the \"name\" of the person to challenge."))
      }
      guard case .success(let name) = PlayerName.normalize(raw) else {
        return .failure(.badMessage("challenge's \"name\" is not a name anyone can have."))
      }
      if let bestOf = e.bestOf, !(1...99).contains(bestOf) || bestOf % 2 == 0 {
        return .failure(.badMessage("\"bestOf\" must be odd, from 1 to 99."))
      }
      var ruleset: Ruleset.ID?
      if let text = e.ruleset {
        guard let known = Ruleset.ID(rawValue: text) else {
          return .failure(
            .badMessage(
              "\"ruleset\" must be \"classic\" or \"lizardSpock\", not \"\(UntrustedText.escaped(text))\"."
            ))
        }
        ruleset = known
      }
      return .success(
        .challenge(
          name: name, bestOf: e.bestOf, ruleset: ruleset, fair: e.fair ?? false, id: e.id))
    case "accept", "decline":
      guard let challenge = e.challenge else {
        return .failure(.badMessage("\(type) needs the integer \"challenge\" it answers."))
      }
      return .success(
        type == "accept"
          ? .accept(challenge: challenge, id: e.id)
          : .decline(challenge: challenge, block: e.block ?? false, id: e.id))
    case "match":
      guard let match = e.match, match > 0 else {
        return .failure(
          .badMessage("match needs the positive integer \"match\": the match's number."))
      }
      return .success(.match(match: match, id: e.id))
    case "enter": return .success(.enter(id: e.id))
    case "withdraw": return .success(.withdraw(id: e.id))
    case "lobbyResync": return .success(.lobbyResync(id: e.id))
    case "rematch": return .success(.rematch(id: e.id))
    case "leave": return .success(.leave(id: e.id))
    case "ping": return .success(.ping(id: e.id))
    default:
      return .failure(.badMessage("Unknown message type \"\(UntrustedText.escaped(type))\"."))
    }
  }

  /// `[A-Za-z0-9_-]{1,32}`.
  public static func isValidRoom(_ room: String) -> Bool {
    (1...32).contains(room.utf8.count)
      && room.utf8.allSatisfy {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
          || $0 == UInt8(ascii: "-")
      }
  }
}
