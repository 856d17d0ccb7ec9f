/// The server's whole game state: every room, and the quick-match room waiting for a
/// second player. One value, one reducer, one source of truth.
///
/// Invariants: `quickMatchRoom`, when set, names a quick-match room with exactly one
/// player in it and a seat free (``RoomState/loneSeat``); no two quick-match rooms hold a
/// connected player alone (one whose opponent leaves is paired with whoever waits);
/// no room in `rooms` is empty (an empty room is removed by the action that empties it).
public struct LobbyState: Sendable, Equatable {
  public var rooms: [String: RoomState]
  /// The quick-match room with one player waiting for an opponent: a new one, or one
  /// whose other player left.
  public var quickMatchRoom: String?
  /// The number the next quick-match room is named with (`quick-N`).
  public var nextQuickMatchNumber: Int
  /// The number the next room opened for two chosen players is named with (`duel-N`).
  public var nextMatchNumber: Int
  /// Settings for rooms created by a join.
  public var defaults: RoomState.Settings
  /// The tournament taking entries, running, or the last one finished.
  public var tournament: Tournament?
  /// Which identity holds which name.
  public var names = NameBook()
  /// The declines for the evening of players with an identity, oldest first: those of
  /// the last ``ChallengeBoard/eveningMillis``, at most
  /// ``ChallengeBoard/maxDeclinedForTheEvening``.
  public internal(set) var blocks: [ChallengeBoard.Block] = []

  public init(defaults: RoomState.Settings = RoomState.Settings()) {
    self.rooms = [:]
    self.quickMatchRoom = nil
    self.nextQuickMatchNumber = 1
    self.nextMatchNumber = 1
    self.defaults = defaults
    self.tournament = nil
  }

  /// The room a player joining with `requested` (nil: quick match) lands in: the named
  /// room, the quick-match room that is waiting, or a new quick-match room.
  public func roomForJoin(requested: String?) -> String {
    if let requested { return requested }
    return quickMatchRoom ?? "quick-\(nextQuickMatchNumber)"
  }

  /// The room the next ``LobbyAction/openMatch(players:settings:at:)`` opens.
  public var nextMatchRoom: String { "duel-\(nextMatchNumber)" }

  /// Players seated alone in a room, waiting for an opponent (what a server announces on
  /// the local network): in a new room, or where the other player left. Counts every
  /// room, so it is for occasional use, not per action.
  public var waitingPlayers: Int {
    rooms.values.count(where: \.hasPlayerWaiting)
  }

  /// Whether `name` is a quick-match room's: `quick-` and a number. Only quick match
  /// creates such rooms (a named join may enter one, not create it).
  public static func isQuickMatchRoom(_ name: String) -> Bool {
    isNumbered(name, prefix: "quick-")
  }

  /// Whether `name` is a room an accepted challenge opened (`duel-N`): nobody is seated in
  /// it after its two players, so a player left alone there waits for nobody.
  public static func isChallengeRoom(_ name: String) -> Bool {
    isNumbered(name, prefix: "duel-")
  }

  /// Whether only the server may create a room of this name: quick match's `quick-N`
  /// and ``nextMatchRoom``'s `duel-N` (a named join may enter one, not create it).
  public static func isReservedRoomName(_ name: String) -> Bool {
    isQuickMatchRoom(name) || isNumbered(name, prefix: "duel-")
      || Tournament.isTournamentRoom(name)
  }

  private static func isNumbered(_ name: String, prefix: String) -> Bool {
    guard name.hasPrefix(prefix) else { return false }
    let number = name.utf8.dropFirst(prefix.utf8.count)
    return !number.isEmpty && number.allSatisfy { (0x30...0x39).contains($0) }
  }

  /// The settings of the room a join lands in (see ``roomForJoin(requested:)``): the
  /// room's own when it exists, else the defaults, made fair when the join asks for it
  /// and names the room.
  public func settingsForJoin(requested: String?, fair: Bool) -> RoomState.Settings {
    if let room = rooms[roomForJoin(requested: requested)] { return room.settings }
    var settings = defaults
    if fair, requested != nil { settings.fair = true }
    return settings
  }

  /// The room and seat that `token` holds, if any. Looks at every room: for tests and
  /// tools (the server keeps an index of tokens instead).
  public func locate(token: String) -> (room: String, seat: Seat)? {
    for (name, room) in rooms {
      if let seat = room.seat(holding: token) { return (name, seat) }
    }
    return nil
  }
}
