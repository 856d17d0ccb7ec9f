import RoshamboCrypto
import RoshamboGame
import RoshamboJSON

/// What changed from one lobby view to the next, for a follower that has the first: the
/// `lobbyPatch` message (docs/PROTOCOL.md, "Following the lobby"). Each list of the new
/// view is told as pieces, runs of the old list's entries kept as they were and whole
/// new entries; the other fields are replaced whole when they changed. An entry is never
/// patched field by field, so a field added to a room, a person or a leader needs no new
/// patch form.
///
/// Invariant: `old.applying(LobbyPatch.make(from: old, to: new)) == new`, for any two
/// views.
public struct LobbyPatch: Sendable, Equatable {
  /// One list of the new view, told from the same list of the old one.
  ///
  /// Invariant: ``applied(to:)`` gives back the list ``make(from:to:)`` was given as
  /// `new`, from the list it was given as `old`.
  public struct ListPatch<Entry: Sendable & Equatable>: Sendable, Equatable {
    public enum Piece: Sendable, Equatable {
      /// The old list's entries at these places, as they were.
      case kept(Range<Int>)
      /// An entry the old list does not have as it is now.
      case new(Entry)
    }

    public var pieces: [Piece]

    public init(pieces: [Piece]) { self.pieces = pieces }

    /// `new` told from `old`, or nil when they are the same list. Each entry of `new`
    /// is found in `old` (where the last run left off first, so an unchanged stretch is
    /// one run), else sent whole.
    public static func make(from old: [Entry], to new: [Entry]) -> ListPatch? {
      guard old != new else { return nil }
      var pieces: [Piece] = []
      var run: Range<Int>?
      for entry in new {
        if let current = run, current.upperBound < old.count, old[current.upperBound] == entry {
          run = current.lowerBound..<(current.upperBound + 1)
          continue
        }
        if let current = run { pieces.append(.kept(current)) }
        if let place = old.firstIndex(of: entry) {
          run = place..<(place + 1)
        } else {
          run = nil
          pieces.append(.new(entry))
        }
      }
      if let current = run { pieces.append(.kept(current)) }
      return ListPatch(pieces: pieces)
    }

    /// The new list, or nil when a kept run is not within `old` (the patch was made
    /// from another list).
    public func applied(to old: [Entry]) -> [Entry]? {
      var result: [Entry] = []
      for piece in pieces {
        switch piece {
        case .kept(let range):
          guard range.lowerBound >= 0, range.upperBound <= old.count else { return nil }
          result += old[range]
        case .new(let entry):
          result.append(entry)
        }
      }
      return result
    }
  }

  /// Nil when unchanged (as for every field below).
  public var people: ListPatch<LobbyView.Person>?
  public var peopleCount: Int?
  public var rooms: ListPatch<LobbyView.Room>?
  public var roomCount: Int?
  public var leaders: ListPatch<LobbyView.Leader>?
  public var recent: ListPatch<LobbyView.Recent>?
  /// Nil when unchanged; `.some(nil)` when the lobby no longer has a tournament.
  public var tournament: LobbyView.TournamentView??
  /// Nil when unchanged; `.some(nil)` when the server no longer says its name.
  public var server: String??

  public init() {}

  /// Whether nothing changed.
  public var isEmpty: Bool { self == LobbyPatch() }

  /// What a follower that has `old` needs to have `new`.
  public static func make(from old: LobbyView, to new: LobbyView) -> LobbyPatch {
    var patch = LobbyPatch()
    patch.people = ListPatch.make(from: old.people, to: new.people)
    if old.peopleCount != new.peopleCount { patch.peopleCount = new.peopleCount }
    patch.rooms = ListPatch.make(from: old.rooms, to: new.rooms)
    if old.roomCount != new.roomCount { patch.roomCount = new.roomCount }
    patch.leaders = ListPatch.make(from: old.leaders, to: new.leaders)
    patch.recent = ListPatch.make(from: old.recent, to: new.recent)
    if old.tournament != new.tournament { patch.tournament = .some(new.tournament) }
    if old.server != new.server { patch.server = .some(new.server) }
    return patch
  }
}

extension LobbyView {
  /// This view with `patch` applied, or nil when the patch cannot have been made from it
  /// (a kept run outside a list) or the result breaks a list's cap.
  public func applying(_ patch: LobbyPatch) -> LobbyView? {
    var view = self
    if let people = patch.people {
      guard let list = people.applied(to: self.people), list.count <= Self.maxPeople
      else { return nil }
      view.people = list
    }
    if let rooms = patch.rooms {
      guard let list = rooms.applied(to: self.rooms), list.count <= Self.maxRooms
      else { return nil }
      view.rooms = list
    }
    if let leaders = patch.leaders {
      guard let list = leaders.applied(to: self.leaders), list.count <= Self.maxLeaders
      else { return nil }
      view.leaders = list
    }
    if let recent = patch.recent {
      guard let list = recent.applied(to: self.recent), list.count <= Self.maxRecent
      else { return nil }
      view.recent = list
    }
    if let count = patch.peopleCount { view.peopleCount = count }
    if let count = patch.roomCount { view.roomCount = count }
    if let tournament = patch.tournament { view.tournament = tournament }
    if let server = patch.server { view.server = server }
    return view
  }

  /// The view's fingerprint, as a `lobbyPatch` carries it: the first 64 bits of the
  /// SHA-256 of its `lobby` object as this protocol writes it, 16 lower-case hex digits.
  /// Enough to tell a follower out of step from one in step (a chance of 2⁻⁶⁴ to miss
  /// it); nothing rests on it against someone forging views, who would forge the
  /// fingerprint too.
  public var fingerprint: String {
    var json = JSONText(capacity: 4096)
    json.lobbyView(self)
    let table = Array("0123456789abcdef".utf8)
    var hex: [UInt8] = []
    hex.reserveCapacity(16)
    for byte in SHA256Digest.digest(json.bytes).prefix(8) {
      hex.append(table[Int(byte >> 4)])
      hex.append(table[Int(byte & 0xF)])
    }
    return String(decoding: hex, as: UTF8.self)
  }
}
