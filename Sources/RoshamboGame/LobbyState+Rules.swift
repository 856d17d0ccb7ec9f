import Redux

extension LobbyState {
  /// The room reducer, lifted over the lobby's rooms.
  static let roomReducer = RoomReducer().forEach(
    in: \LobbyState.rooms,
    action: { (action: LobbyAction) -> (String, RoomAction)? in
      if case .room(let name, let roomAction) = action { (name, roomAction) } else { nil }
    })

  /// Why the rules refuse `action`, or nil when they accept it.
  public func refusal(for action: LobbyAction) -> Refusal? {
    switch action {
    case .join(let requested, let name, let token, let at):
      let target = roomForJoin(requested: requested)
      guard let room = rooms[target] else { return nil }
      return room.refusal(for: .playerJoined(name: name, token: token, at: at))
    case .spectate(let name):
      return rooms[name] == nil ? .noSuchRoom(name) : nil
    case .room(let name, let roomAction):
      guard let room = rooms[name] else { return .noSuchRoom(name) }
      return room.refusal(for: roomAction)
    }
  }

  /// Applies `action` if the rules allow it and returns nil, or returns why not.
  @discardableResult
  public mutating func apply(_ action: LobbyAction) -> Refusal? {
    if let refusal = refusal(for: action) { return refusal }
    switch action {
    case .join(let requested, let name, let token, let at):
      let target = roomForJoin(requested: requested)
      if rooms[target] == nil {
        rooms[target] = RoomState(name: target, settings: defaults)
        if requested == nil { nextQuickMatchNumber += 1 }
      }
      rooms[target]!.apply(.playerJoined(name: name, token: token, at: at))
      if requested == nil {
        quickMatchRoom = rooms[target]!.phase == .waiting ? target : nil
      }
    case .spectate(let name):
      rooms[name]!.apply(.spectatorJoined)
    case .room(let name, _):
      Self.roomReducer.reduce(into: &self, action: action)
      if rooms[name]!.isEmpty {
        rooms[name] = nil
      }
      if quickMatchRoom == name, rooms[name]?.phase != .waiting {
        quickMatchRoom = nil
      }
    }
    return nil
  }
}
