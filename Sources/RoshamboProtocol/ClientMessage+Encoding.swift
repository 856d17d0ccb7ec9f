import RoshamboJSON

// Encoding, for clients: ours and the test client.

extension ClientMessage {
  /// The message as JSON bytes. A `choose` is padded with trailing spaces so that its
  /// length is the same whichever weapon it carries.
  public func encoded() -> [UInt8] {
    var json = JSONText(capacity: 96)
    func id(_ id: Int?) {
      if let id { json.comma(); json.key("id"); json.int(id) }
    }
    switch self {
    case .hello(
      let version, let name, let role, let room, let resume, let fair, let challenges,
      let keepalive, let patches, let messageID
    ):
      json.raw("{\"type\":\"hello\",")
      json.key("protocol"); json.int(version); json.comma()
      json.key("name"); json.string(name); json.comma()
      json.key("role"); json.string(role.rawValue)
      if let room { json.comma(); json.key("room"); json.string(room) }
      if let resume { json.comma(); json.key("resume"); json.string(resume) }
      if let fair { json.comma(); json.key("fair"); json.bool(fair) }
      if challenges { json.comma(); json.key("challenges"); json.bool(true) }
      if let keepalive { json.comma(); json.key("keepalive"); json.int(keepalive) }
      if patches { json.comma(); json.key("patches"); json.bool(true) }
      id(messageID)
      json.raw("}")
    case .choose(let round, let weapon, let messageID):
      json.raw("{\"type\":\"choose\",")
      json.key("round"); json.int(round); json.comma()
      json.key("weapon"); json.string(weapon.rawValue)
      id(messageID)
      json.raw("}")
      for _ in 0..<(WireProtocol.weaponFieldWidth - (weapon.rawValue.utf8.count + 2)) {
        json.raw(" ")
      }
    case .commit(let round, let digest, let messageID):
      json.raw("{\"type\":\"commit\",")
      json.key("round"); json.int(round); json.comma()
      json.key("digest"); json.string(digest)
      id(messageID)
      json.raw("}")
    case .reveal(let round, let weapon, let nonce, let messageID):
      json.raw("{\"type\":\"reveal\",")
      json.key("round"); json.int(round); json.comma()
      json.key("weapon"); json.string(weapon.rawValue); json.comma()
      json.key("nonce"); json.string(nonce)
      id(messageID)
      json.raw("}")
      // Every weapon makes a reveal of the same length (as a choose).
      for _ in 0..<(WireProtocol.weaponFieldWidth - (weapon.rawValue.utf8.count + 2)) {
        json.raw(" ")
      }
    case .rematch(let messageID):
      json.raw("{\"type\":\"rematch\"")
      id(messageID)
      json.raw("}")
    case .leave(let messageID):
      json.raw("{\"type\":\"leave\"")
      id(messageID)
      json.raw("}")
    case .enter(let messageID):
      json.raw("{\"type\":\"enter\"")
      id(messageID)
      json.raw("}")
    case .withdraw(let messageID):
      json.raw("{\"type\":\"withdraw\"")
      id(messageID)
      json.raw("}")
    case .lobbyResync(let messageID):
      json.raw("{\"type\":\"lobbyResync\"")
      id(messageID)
      json.raw("}")
    case .match(let match, let messageID):
      json.raw("{\"type\":\"match\",")
      json.key("match"); json.int(match)
      id(messageID)
      json.raw("}")
    case .ping(let messageID):
      json.raw("{\"type\":\"ping\"")
      id(messageID)
      json.raw("}")
    case .challenge(let name, let bestOf, let ruleset, let fair, let messageID):
      json.raw("{\"type\":\"challenge\",")
      json.key("name"); json.string(name)
      if let bestOf { json.comma(); json.key("bestOf"); json.int(bestOf) }
      if let ruleset { json.comma(); json.key("ruleset"); json.string(ruleset.rawValue) }
      if fair { json.comma(); json.key("fair"); json.bool(true) }
      id(messageID)
      json.raw("}")
    case .accept(let challenge, let messageID):
      json.raw("{\"type\":\"accept\",")
      json.key("challenge"); json.int(challenge)
      id(messageID)
      json.raw("}")
    case .decline(let challenge, let block, let messageID):
      json.raw("{\"type\":\"decline\",")
      json.key("challenge"); json.int(challenge)
      if block { json.comma(); json.key("block"); json.bool(true) }
      id(messageID)
      json.raw("}")
    }
    return json.bytes
  }
}
