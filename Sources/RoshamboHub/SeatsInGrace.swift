import RoshamboGame

/// The seats whose grace runs, by the name of the player each waits for (folded,
/// ``NameBook/folded(_:)``): a seat waits for someone to come back only while its grace
/// runs, so the seat waiting for a name is found among that name's, never by looking at
/// every room.
///
/// Invariant: it holds exactly the seats of the `grace` timers the hub keeps (checked by
/// ``HubState/indexMismatch``), each under the name its seat had when the grace began.
struct SeatsInGrace: Equatable {
  struct Place: Hashable, Comparable {
    var room: String
    var seat: Seat

    static func < (lhs: Place, rhs: Place) -> Bool {
      (lhs.room, lhs.seat.rawValue) < (rhs.room, rhs.seat.rawValue)
    }
  }

  /// Each seat's name, folded.
  private(set) var names: [Place: String] = [:]
  /// The seats by folded name.
  private var places: [String: Set<Place>] = [:]

  /// The grace of `seat` in `room`, waiting for `name`, began.
  mutating func began(_ place: Place, waitingFor name: String) {
    ended(place)
    let folded = NameBook.folded(name)
    names[place] = folded
    places[folded, default: []].insert(place)
  }

  /// Its grace was cancelled or ran out.
  mutating func ended(_ place: Place) {
    guard let name = names.removeValue(forKey: place) else { return }
    places[name]?.remove(place)
    if places[name]?.isEmpty == true { places[name] = nil }
  }

  /// The seats waiting for `name` or a name that differs from it only in case, in order
  /// of room and seat.
  func waiting(for name: String) -> [Place] { (places[NameBook.folded(name)] ?? []).sorted() }
}
