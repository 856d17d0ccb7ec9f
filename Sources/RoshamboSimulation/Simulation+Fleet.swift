import RoshamboGame
import RoshamboHub

/// The rest of a fleet, as far as names go: the shared history's name book under its rule
/// (``FleetNameBook``, what PostgreSQL's `roshambo_names` does), read by the hub as the
/// history shipper reads it (what changed since its last read, a while after each offer),
/// and another server of the fleet whose players claim and release names in it: the same
/// people under their own names, strangers under names nobody here uses, and twice an
/// evening a stranger under the name of someone here.
struct SimulatedFleet {
  var book = FleetNameBook()
  /// Every change of the book, in order (a row's version is its place here, from 1).
  var changes: [FleetName] = []
  /// Each name's last change's version.
  var versions: [String: Int] = [:]
  /// The versions the hub has read (the shipper's cursor; a restart reads all again).
  var readThrough = 0
  /// Whether a read is already on its way.
  var readScheduled = false

  /// What the other server's players and host do with a name.
  enum Act {
    case claim(name: String, identity: String)
    /// The host releases the name from whoever holds it in the book.
    case release(name: String)
  }

  mutating func apply(_ offer: NameOffer, now: Int64, lapseMillis: Int64?) {
    guard let row = book.offer(offer, now: now, lapseMillis: lapseMillis) else { return }
    changes.append(row)
    versions[row.folded] = changes.count
  }

  /// A stranger's identity (not any simulated person's: theirs are small numbers).
  static func stranger(_ index: Int) -> String {
    let hex = String(index + 1, radix: 16)
    return "f" + String(repeating: "e", count: 63 - hex.count) + hex
  }
}

extension Simulation {
  /// The hub's offers reach the book at once; the hub reads what changed a moment later.
  func fleetNamesOffered(_ offers: [NameOffer]) {
    for offer in offers {
      fleet.apply(offer, now: now, lapseMillis: hubConfiguration.nameLapseMillis)
    }
    scheduleFleetRead()
  }

  /// The shipper reads what changed after its next idle tick and a query's time.
  func scheduleFleetRead() {
    guard !fleet.readScheduled else { return }
    fleet.readScheduled = true
    queue.schedule(.fleetRead(hub: hubGeneration), at: now + random.int(250...2_000))
  }

  func fleetRead() {
    fleet.readScheduled = false
    guard runner != nil, fleet.readThrough < fleet.changes.count else { return }
    let rows = Array(fleet.changes[fleet.readThrough...])
    fleet.readThrough = fleet.changes.count
    counts["fleet rows read", default: 0] += rows.count
    trace.note("\(now - start) fleet read \(rows.count)")
    handle(.fleetNamesRead(rows))
  }

  /// A restarted server's shipper reads the whole book again.
  func fleetRestarted() {
    fleet.readThrough = 0
    fleet.readScheduled = false
    scheduleFleetRead()
  }

  /// What the other server's players do with names over the evening.
  func scheduleOtherServer(until end: Int64) {
    guard !players.isEmpty else { return }
    let span = max(1, end - now)
    for index in players.indices where random.chance(0.5) {
      queue.schedule(
        .otherServer(.claim(name: players[index].name, identity: players[index].identity)),
        at: now + random.int(0...span))
    }
    for stranger in 0..<4 {
      queue.schedule(
        .otherServer(.claim(name: "Q\(stranger)", identity: SimulatedFleet.stranger(stranger))),
        at: now + random.int(0...span))
    }
    // Strangers under two people's names, while people arrive: the first claim to reach
    // the book holds it, and a server whose holder differs yields.
    for stranger in 98...99 {
      let victim = players[Int(random.int(0...Int64(players.count - 1)))]
      queue.schedule(
        .otherServer(.claim(name: victim.name, identity: SimulatedFleet.stranger(stranger))),
        at: now + random.int(0...90_000))
    }
    // The other server's host releases someone's name (once they are not playing).
    let released = players[Int(random.int(0...Int64(players.count - 1)))]
    queue.schedule(
      .otherServer(.release(name: released.name)),
      at: now + random.int(0...span))
  }

  func otherServer(_ act: SimulatedFleet.Act) {
    let offer: NameOffer
    switch act {
    case .claim(let name, let identity):
      offer = NameOffer(.claim, name: name, identity: identity, at: now)
    case .release(let name):
      // A host releases the name of someone not playing: a seat, or a tournament entry,
      // under a name released while its holder is away is taken back only with its token
      // (``HubSeatOwnershipTests``), which a lobby coming back does not have.
      let lobby = hub?.state.lobby
      let playing =
        lobby?.rooms.values.contains { $0.seats.values.contains { $0.name == name } } ?? true
        || lobby?.tournament?.entrants.contains(name) == true
      guard !playing, let row = fleet.book.rows[NameBook.folded(name)] else {
        if playing { queue.schedule(.otherServer(act), at: now + 60_000) }
        return
      }
      offer = NameOffer(.release, name: name, identity: row.identity, at: now)
    }
    trace.note("\(now - start) other server \(offer.kind) \(offer.folded)")
    counts["other server \(offer.kind)", default: 0] += 1
    fleet.apply(offer, now: now, lapseMillis: hubConfiguration.nameLapseMillis)
    scheduleFleetRead()
  }

  /// A name is held by one identity across the fleet: once the hub has read a name's row
  /// of the book, it holds that name only for the book's holder (or for nobody), while
  /// its journal can be written (a failed write pauses play and may lose the hub's yield,
  /// which it makes again when play resumes).
  func checkFleetNames() {
    guard let hub = runner?.core, hub.state.acceptsActions else { return }
    let holders = hub.state.lobby.names.holders
    // Walked in the dictionary's order while all holds (every step); a failure is named
    // from a walk by key, so it is the seed's whatever the process's hashing.
    guard fleetNameFailure(holders) != nil,
      let failure = fleetNameFailure(holders.sorted { $0.key < $1.key })
    else { return }
    fail("a name is held by one identity across the fleet", failure)
  }

  /// What is wrong with the first of `holders` (folded name, identity) the fleet's book
  /// gives to another, if any.
  private func fleetNameFailure(_ holders: some Sequence<(key: String, value: String)>)
    -> String?
  {
    for (folded, holder) in holders {
      guard let row = fleet.book.rows[folded], let version = fleet.versions[folded],
        version <= fleet.readThrough
      else { continue }
      if row.released, row.identity == holder {
        return "\(folded), released on another server, is still held here by \(holder.suffix(6))"
      }
      if row.holds(now: now, lapseMillis: hubConfiguration.nameLapseMillis),
        row.identity != holder
      {
        return "\(folded) is held here by \(holder.suffix(6)) but on the fleet by "
          + "\(row.identity.suffix(6))"
      }
    }
    return nil
  }
}
