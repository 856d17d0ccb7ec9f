import RoshamboGame
import RoshamboProtocol

/// Names at a party: a name belongs to the first player identity (client key) to use it
/// on this server (``NameBook``, kept in the journal), and no two people in the lobby at
/// once share one. The same identity under the same name is the same person: their
/// lobby screen replaces the ghost a closed terminal left, and `roshambo who` beside it
/// is not someone else. A client without an identity plays under a name nobody holds;
/// two such players in rooms may share one, as protocol 1 always allowed.
///
/// In a fleet (``HubConfiguration/sharesNames``) a name is one identity's on every server:
/// each server offers its holders' claims and uses to the fleet's name book, where the
/// first claim holds (``FleetNameBook``), and yields a name the book gives another.
extension HubCore {
  /// Why `name` is not for a connection presenting `identity` in `role` now (a fatal
  /// refusal of its `hello`), and whether that is because another player holds it (not
  /// because someone here uses it), or nil.
  func nameRefusal(_ name: String, identity: String?, role: ClientMessage.Role)
    -> (error: ProtocolError, heldByAnother: Bool)?
  {
    let book = state.lobby.names
    let lapsed = book.lapses(name, now: now, afterMillis: configuration.nameLapseMillis)
    if !book.allows(name, for: identity), !lapsed {
      let error = ProtocolError(
        code: .nameTaken,
        message: "The name \(name) belongs to another player on this server. Play under "
          + "another name (--name NAME), or ask the host to release it.", fatal: true)
      return (error, true)
    }
    if let held = heldInFleet(name), held.identity != identity {
      let error = ProtocolError(
        code: .nameTaken,
        message: "The name \(name) belongs to another player on this group of servers. Play "
          + "under another name (--name NAME), or ask the host to release it.", fatal: true)
      return (error, true)
    }
    // In the lobby everyone is someone: another follower who can be challenged, or a
    // player seated under the name, who is not the same identity, is another person. A
    // look at the lobby (`who`, `lobby --json`) is nobody: it never keeps a name from the
    // one who holds it. Players in rooms are told apart by their seats.
    let someoneElse = state.sessions.isUsed(
      name, byAnyoneBut: identity, countingSeated: role == .lobby)
    if someoneElse {
      let error = ProtocolError(
        code: .nameTaken,
        message: "Someone here is already called \(name). Pick another name (--name NAME)"
          + (identity == nil ? "." : ", or wait until they have left."), fatal: true)
      return (error, false)
    }
    return nil
  }

  /// Why `identity` may not take another name now, in words for the player, or nil: it
  /// holds as many as one key may, or it is new here and its address has brought as many
  /// new identities as it may this hour.
  func nameLimit(for identity: String, address: String?) -> String? {
    let book = state.lobby.names
    let held = book.count(heldBy: identity)
    if held >= configuration.namesPerIdentity {
      let names = book.names(heldBy: identity, limit: 5).joined(separator: ", ")
      return "your player key holds \(held) names here already (\(names)), the most one "
        + "key may hold"
    }
    if held == 0, !state.newIdentities.allows(address, now: now) {
      return "many new players have come from your address in the last hour"
    }
    return nil
  }

  /// A day: a holder's use of a name is journaled at most this often.
  static let nameUseMillis: Int64 = 86_400_000

  /// `identity` takes `name` when nobody holds it (journaled with what follows), and no
  /// seat is in play under it: a seat seated or waiting under a name nobody holds is a
  /// player's without a key (or one whose name the host released), taken back by its token
  /// alone; a name claimed now would let the claimant be seated in it by name
  /// (``heldSeatArrived(_:name:identity:)`` seats a name's holder).
  ///
  /// A name whose holder has not used it for ``HubConfiguration/nameLapseMillis`` lapses
  /// and goes to the one claiming it; the holder's own use is kept (once a day at most),
  /// so that a name in use never lapses.
  ///
  /// Past ``nameLimit(for:address:)`` the name is not kept for the player although nobody
  /// holds it: they play under it as a player without a key would, and anyone may take
  /// it. That is logged, not sent: any unasked error ends a protocol-1 client.
  mutating func claimName(_ name: String, identity: String?, link: Peer) {
    guard let identity else { return }
    let book = state.lobby.names
    let holder = book.holder(of: name)
    if holder == identity {
      let used = book.lastUsed[NameBook.folded(name)]
      if used.map({ now - $0 >= Self.nameUseMillis }) ?? true {
        perform(.names(.used(name: name, at: now)))
        offer(.use, name, identity: identity)
      }
      return
    }
    let lapsed =
      holder != nil && book.lapses(name, now: now, afterMillis: configuration.nameLapseMillis)
    guard holder == nil || lapsed, !state.sessions.isSeated(name),
      state.seatsInGrace.waiting(for: name).isEmpty,
      heldInFleet(name).map({ $0.identity == identity }) ?? true
    else { return }
    if let limit = nameLimit(for: identity, address: link.address) {
      log(
        .notice, "a name is not kept for a player: anyone may take it",
        ["conn": "\(link.id)", "name": LogText.quoted(name), "why": limit])
      return
    }
    if lapsed {
      perform(.names(.lapsed(name: name)))
      log(
        .notice, "a name nobody had used for long went to a new player",
        ["name": LogText.quoted(name)])
    }
    guard perform(.names(.claim(name: name, identity: identity))) != nil else { return }
    if book.count(heldBy: identity) == 0 { state.newIdentities.spend(link.address, now: now) }
    perform(.names(.used(name: name, at: now)))
    offer(.claim, name, identity: identity)
  }

  /// The fleet's row for `name` while it holds the name (not released, not lapsed).
  func heldInFleet(_ name: String) -> FleetName? {
    guard let row = state.fleetNames[NameBook.folded(name)],
      row.holds(now: now, lapseMillis: configuration.nameLapseMillis)
    else { return nil }
    return row
  }

  /// Tells the fleet's name book that `identity` claimed, used or was released from
  /// `name` here (nothing outside a fleet).
  mutating func offer(_ kind: NameOffer.Kind, _ name: String, identity: String) {
    guard configuration.sharesNames else { return }
    emit(.offerNames([NameOffer(kind, name: name, identity: identity, at: now)]))
  }

  /// At start, the fleet's book is told every name held here, as used when last used:
  /// claims made while the book could not be reached, or lost in a crash, reach it now.
  mutating func offerHeldNames() {
    guard configuration.sharesNames else { return }
    let book = state.lobby.names
    let offers = book.holders.sorted { $0.key < $1.key }.map { name, identity in
      NameOffer(.use, name: name, identity: identity, at: book.lastUsed[name] ?? now)
    }
    if !offers.isEmpty { emit(.offerNames(offers)) }
  }

  /// Rows of the fleet's name book read: a name held here by another identity than the
  /// fleet's holder (who claimed it first), or released on another server, is not held
  /// here any more. Its players play on under it until they leave, as under a name
  /// nobody holds.
  mutating func fleetNamesRead(_ rows: [FleetName]) {
    // A release is kept too: a failed journal write may lose its yield, made again when
    // play resumes (``yieldToFleet(_:)``); ``heldInFleet(_:)`` reads it as holding nothing.
    for row in rows { state.fleetNames[row.folded] = row }
    yieldToFleet(rows)
  }

  /// Every name held here that `rows` give another identity, or release, is no longer
  /// held here. Also run when play resumes after a failed journal write, which may have
  /// lost a yield: the fleet's rows are read once.
  mutating func yieldToFleet(_ rows: [FleetName]) {
    for row in rows {
      guard let holder = state.lobby.names.holders[row.folded] else { continue }
      let yields =
        row.released
        ? holder == row.identity
        : holder != row.identity
          && row.holds(now: now, lapseMillis: configuration.nameLapseMillis)
      guard yields, perform(.names(.heldElsewhere(name: row.folded))) != nil else { continue }
      log(
        .notice,
        row.released
          ? "a name released on another server of the group is released here too"
          : "a name another player claimed first on another server of the group is theirs here too",
        ["name": LogText.quoted(row.folded)])
    }
  }

  /// The followers a closed terminal or a lost link left behind for this person: the
  /// same identity and name, taking challenges, other than `link`. They are closed, their
  /// challenges withdrawn, and the tournament's entry moves to `link`.
  mutating func replaceGhosts(of link: Peer, name: String, identity: String?) {
    guard let identity else { return }
    for ghost in state.sessions.followers(named: name, identity: identity)
    where ghost.link != link && ghost.takesChallenges {
      if state.tournament.links[name] == ghost.link { state.tournament.links[name] = link }
      state.sessions.unfollow(ghost.link.id)
      // Its challenges end with it (the new screen never saw them): a late answer from
      // the old connection would otherwise take a challenge for a lobby no longer here.
      settle(state.challenges.reduce(.departed(ghost.link.id)))
      // Said, and fatal: a lobby that only lost its connection would come back and replace
      // the new one in turn, and the two would take the lobby from each other for ever.
      state.outbox.append(
        .message(
          ghost.link,
          .error(
            ProtocolError(
              code: .nameTaken,
              message: "Your lobby was opened again in another terminal (a second "
                + "roshambo lobby, or roshambo challenge, with your identity), which has it "
                + "now; this one closes. To have it here again, run roshambo lobby in this "
                + "terminal.", fatal: true), re: nil)))
      state.outbox.append(.close(ghost.link))
      log(
        .info, "a lobby screen replaced the one left behind",
        ["conn": "\(link.id)", "old": "\(ghost.link.id)"])
    }
  }
}
