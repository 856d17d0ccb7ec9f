import RoshamboGame

/// Which room holds each seat's stored resume token, so that a `hello` that resumes finds
/// its seat without looking at every room.
///
/// Invariant: ``room(holding:)`` names exactly the room a scan of the lobby would find for
/// a token (a seat not given up, holding it); ``mismatch(with:)`` checks it. It holds
/// while every room an accepted action touched is indexed again after it
/// (``HubCore/perform(_:origin:)``), and the lobby is indexed whole whenever it is
/// replaced (start, a reload after a failed commit).
struct SeatTokens {
  private var roomByToken: [String: String] = [:]
  private var tokensByRoom: [String: Held] = [:]

  /// The tokens of a room's two seats (nil: no seat, or one given up). A value with no
  /// allocation of its own, so that indexing a room no action changed costs one look-up.
  struct Held: Equatable {
    var one: String?
    var two: String?

    init(_ room: RoomState?) {
      func token(_ seat: Seat) -> String? {
        room?.seats[seat].flatMap { $0.hasLeft ? nil : $0.token }
      }
      (one, two) = (token(.one), token(.two))
    }

    var tokens: [String] { [one, two].compactMap { $0 } }
  }

  init(_ lobby: LobbyState) {
    for name in lobby.rooms.keys { index(name, in: lobby) }
  }

  /// The room and seat holding `token` (stored form), if any.
  func locate(_ token: String, in lobby: LobbyState) -> (room: String, seat: Seat)? {
    guard let name = roomByToken[token], let seat = lobby.rooms[name]?.seat(holding: token)
    else { return nil }
    return (name, seat)
  }

  /// `room` may have changed: its tokens now are the ones it holds. Most actions (a pick)
  /// change none, and cost one look-up here.
  mutating func index(_ room: String, in lobby: LobbyState) {
    let held = Held(lobby.rooms[room])
    let old = tokensByRoom[room] ?? Held(nil)
    guard held != old else { return }
    for token in old.tokens where roomByToken[token] == room { roomByToken[token] = nil }
    tokensByRoom[room] = held == Held(nil) ? nil : held
    for token in held.tokens { roomByToken[token] = room }
  }

  /// What differs from a scan of `lobby`, or nil. For tests and the simulator.
  func mismatch(with lobby: LobbyState) -> String? {
    var scanned: [String: String] = [:]
    for (name, room) in lobby.rooms {
      for held in room.seats.values where !held.hasLeft { scanned[held.token] = name }
    }
    if scanned.count != roomByToken.count {
      return "\(roomByToken.count) tokens indexed, \(scanned.count) held"
    }
    for (token, room) in scanned where roomByToken[token] != room {
      return "a token of \(room) is indexed under \(roomByToken[token] ?? "no room")"
    }
    return nil
  }
}
