import RoshamboGame
import RoshamboProtocol

/// Names at a party: a name belongs to the first player identity (client key) to use it
/// on this server (``NameBook``, kept in the journal), and no two people in the lobby at
/// once share one. The same identity under the same name is the same person: their
/// lobby screen replaces the ghost a closed terminal left, and `roshambo who` beside it
/// is not someone else. A client without an identity plays under a name nobody holds;
/// two such players in rooms may share one, as protocol 1 always allowed.
extension HubCore {
  /// Why `name` is not for a connection presenting `identity` in `role` now (a fatal
  /// refusal of its `hello`), or nil.
  func nameRefusal(_ name: String, identity: String?, role: ClientMessage.Role)
    -> ProtocolError?
  {
    if !state.lobby.names.allows(name, for: identity) {
      return ProtocolError(
        code: .nameTaken,
        message: "The name \(name) belongs to another player on this server. Play under "
          + "another name (--name NAME), or ask the host to release it.", fatal: true)
    }
    // In the lobby everyone is someone: another follower who can be challenged, or a
    // player seated under the name, who is not the same identity, is another person. A
    // look at the lobby (`who`, `lobby --json`) is nobody: it never keeps a name from the
    // one who holds it. Players in rooms are told apart by their seats.
    let someoneElse = state.sessions.isUsed(
      name, byAnyoneBut: identity, countingSeated: role == .lobby)
    if someoneElse {
      return ProtocolError(
        code: .nameTaken,
        message: "Someone here is already called \(name). Pick another name (--name NAME)"
          + (identity == nil ? "." : ", or wait until they have left."), fatal: true)
    }
    return nil
  }

  /// `identity` takes `name` when nobody holds it (journaled with what follows), and no
  /// seat is in play under it: a seat seated or waiting under a name nobody holds is a
  /// player's without a key (or one whose name the host released), taken back by its token
  /// alone; a name claimed now would let the claimant be seated in it by name
  /// (``heldSeatArrived(_:name:identity:)`` seats a name's holder).
  mutating func claimName(_ name: String, identity: String?) {
    guard let identity, state.lobby.names.holder(of: name) == nil,
      !state.sessions.isSeated(name), state.seatsInGrace.waiting(for: name).isEmpty
    else { return }
    perform(.names(.claim(name: name, identity: identity)))
  }

  /// The followers a closed terminal or a lost link left behind for this person: the
  /// same identity and name, taking challenges, other than `link`. They are closed, and
  /// the tournament's entry moves to `link`.
  mutating func replaceGhosts(of link: Peer, name: String, identity: String?) {
    guard let identity else { return }
    for ghost in state.sessions.followers(named: name, identity: identity)
    where ghost.link != link && ghost.takesChallenges {
      if state.tournament.links[name] == ghost.link { state.tournament.links[name] = link }
      state.sessions.unfollow(ghost.link.id)
      // Said, and fatal: a lobby that only lost its connection would come back and replace
      // the new one in turn, and the two would take the lobby from each other for ever.
      state.outbox.append(
        .message(
          ghost.link,
          .error(
            ProtocolError(
              code: .nameTaken,
              message: "Your lobby was opened again in another terminal, which has it now; "
                + "this one closes.", fatal: true), re: nil)))
      state.outbox.append(.close(ghost.link))
      log(
        .info, "a lobby screen replaced the one left behind",
        ["conn": "\(link.id)", "old": "\(ghost.link.id)"])
    }
  }
}
