import Redux
import RoshamboGame
import RoshamboProtocol

/// The client's reducer: pure, like the server's. Besides the new state it returns what
/// the action calls for beyond it (``ClientEffect``: a message to send, a commitment to
/// make, a seat to keep, evidence or a record to write), for ``PlayerCore`` to carry
/// out.
///
/// Invariant: a pick goes out (an effect) only when this reducer takes it as the round's
/// pending pick, once per round, or to send again, after a new connection, a pick the
/// server does not show.
public struct ClientReducer: EffectReducer {
  public typealias State = ClientState
  public typealias Action = ClientAction

  public init() {}

  public func reduce(into state: inout ClientState, effectsOf action: ClientAction)
    -> [ClientEffect]
  {
    let lying = state.fair.evidence != nil
    var effects: [ClientEffect] = []
    switch action {
    case .connection(let status):
      // A new connection replaced a lost one: a pick sent into the lost one may never
      // have arrived, so the first view after it says whether to send it again.
      if status == .connected, case .reconnecting = state.context.connection {
        state.checksLostPick = true
      }
      state.context.connection = status
      // Connected (again, after the server closed): it is serving.
      if status == .connected { state.context.closesAt = nil }
    case .welcome(let room, let seat, let token):
      if let previous = state.room, previous != room {
        // Quick match moved this player to another room (between matches): a new room,
        // a new sequence of states, a new match.
        let opponent = state.view?.opponent
        state.view = nil
        state.seq = -1
        state.pickedRounds = []
        state.fair.startMatch()
        // The tournament seats its next round itself; the screen's title says which.
        state.context.notice =
          Tournament.isTournamentRoom(room)
          ? nil
          : "\(opponent.map { "\($0.name) left; " } ?? "")quick match paired you in room \(room)."
      } else {
        state.context.notice = nil
      }
      state.room = room
      state.seat = seat
      state.token = token ?? state.token
      if seat != nil, let token { effects.append(.keepSeat(room: room, token: token)) }
    case .synced(let view, let seq):
      // A view not newer than the last (the same one again on a new connection) changes
      // nothing, but still says whether to send a lost pick again, and the reveal due.
      guard seq > state.seq else {
        return afterSync(&state, previousPhase: state.view?.phase, lying: lying)
      }
      let previous = state.view
      // A new match starts only once the last one ended (a rematch, or a new opponent in
      // the free seat), or from waiting; the intake refuses any other way back.
      if let previous, previous.phase != .choosing, view.phase == .choosing {
        state.pickedRounds = []
        state.fair.startMatch()
      }
      let previousRound = previous?.round
      state.view = view
      state.seq = seq
      if view.fair {
        checkFairPlay(&state, view: view)
        // The server knows only the digest: the weapon shown is this client's own secret.
        if view.phase == .choosing, let secret = state.fair.secret(for: view.round) {
          state.context.pendingPick = secret.weapon
        }
      }
      // Pending ends when the server shows the pick, or the round has moved on.
      if let you = view.you,
        view.player(you)?.chosen == true || view.round != previousRound || view.phase != .choosing
      {
        state.context.pendingPick = nil
      }
      effects += afterSync(&state, previousPhase: previous?.phase, lying: lying)
    case .serverError(let error):
      state.context.notice = error.message
      if error.code == .alreadyChosen || error.code == .wrongRound {
        state.context.pendingPick = nil
      }
      // The server could not save (its journal's disk, say) and did nothing: a pick (or a
      // reveal) it refused so is sent again, in a while (no view comes while play pauses)
      // or on the next view, whichever is first.
      if error.code == .unavailable, state.context.pendingPick != nil || owesReveal(state) {
        state.checksLostPick = true
        effects.append(.retryLater)
      }
      if error.code == .badToken { effects.append(.forgetSeat) }
      if error.code == .matchReady { effects.append(.matchReady) }
    case .retryUnsaved:
      guard state.checksLostPick, let view = state.view else { return [] }
      state.checksLostPick = false
      if let resend = lostPick(state, view: view) {
        effects.append(.send(resend))
      } else if owesReveal(state), let secret = state.fair.secret(for: view.round) {
        effects.append(
          .send(.reveal(round: view.round, weapon: secret.weapon, nonce: secret.nonce)))
      }
    case .choose(let weapon):
      guard let view = state.view, state.canPick(weapon) else { return [] }
      // In a fair room a nonce is made outside the reducer, and `.commit` picks.
      guard !view.fair else { return [.makeCommitment(weapon)] }
      state.pickedRounds.insert(view.round)
      state.context.pendingPick = weapon
      state.context.notice = nil
      effects.append(.send(.choose(round: view.round, weapon: weapon)))
    case .commit(let weapon, let nonce):
      guard let view = state.view, view.fair, state.canPick(weapon), let me = view.you,
        let bytes = Commitment.bytes(ofHex: nonce)
      else { return [] }
      let digest = Commitment.digest(
        room: view.room, round: view.round, seat: me, weapon: weapon, nonce: bytes)
      state.fair.secrets[view.round] = FairPlay.Secret(weapon: weapon, nonce: nonce, digest: digest)
      state.pickedRounds.insert(view.round)
      state.context.pendingPick = weapon
      state.context.notice = nil
      effects.append(.send(.commit(round: view.round, digest: digest)))
    case .brokeProtocol(let violation):
      guard state.fair.evidence == nil, let view = state.view, view.fair,
        let (round, secret) = state.fair.secrets.min(by: { $0.key < $1.key })
      else { return [] }
      let missing = RoundResult.unreported(round)
      let (shown, seat) = (state.fair.opponentCommitments[round], state.seat)
      record(
        .lie("it broke off round \(round), which you committed to: \(violation)"), for: missing,
        in: &state
      ) { reason in
        FairPlay.Evidence(
          room: view.room, round: round, seat: seat, reason: reason, secret: secret,
          opponentCommitmentShown: shown, reported: missing)
      }
    case .evidenceSaved(let path):
      let reason = state.fair.evidence?.reason ?? "it reported a round falsely"
      state.context.notice =
        "The server cheated: \(reason). The match is stopped; the evidence is in \(path)."
    case .rematch:
      state.context.notice = nil
      // Asked once, as the view shows, is asked: the server refuses a second ask.
      if let seat = state.seat, state.view?.rematch.contains(seat) == true { break }
      effects.append(.send(.rematch))
    case .quit:
      state.context.notice = nil
      effects.append(.leave)
    case .notice(let text):
      state.context.notice = text
    case .tick(let now):
      state.context.now = now
    case .serverClosing(let closesAt):
      state.context.closesAt = closesAt
    case .roundTrip(let millis):
      state.context.roundTripMillis = millis
    }
    if !lying, case .brokeProtocol = action, let evidence = state.fair.evidence {
      effects.append(.keepEvidence(evidence))
    }
    return effects
  }

  /// What a new view calls for, in order: keeping (or forgetting) the seat, sending again
  /// a pick lost with a connection, the reveal the view allows, the evidence of a lie
  /// first seen in it, and this client's record of a match seen to end.
  private func afterSync(
    _ state: inout ClientState, previousPhase: RoomState.Phase?, lying: Bool
  ) -> [ClientEffect] {
    guard let view = state.view else { return [] }
    var effects: [ClientEffect] = []
    // A player's seat is kept while its match can still be played, forgotten once over.
    if view.you != nil {
      if view.phase == .over {
        effects.append(.forgetSeat)
      } else if let room = state.room, let token = state.token {
        effects.append(.keepSeat(room: room, token: token))
      }
    }
    if state.checksLostPick {
      state.checksLostPick = false
      if let resend = lostPick(state, view: view) { effects.append(.send(resend)) }
    }
    let fair = state.fair
    if let round = fair.revealNow, let secret = fair.secret(for: round), fair.evidence == nil {
      // Only now: the opponent's commitment for this round has been shown and kept.
      effects.append(.send(.reveal(round: round, weapon: secret.weapon, nonce: secret.nonce)))
    }
    if let evidence = fair.evidence, !lying {
      effects.append(.keepEvidence(evidence))
    }
    if previousPhase == .choosing, view.phase == .over { effects.append(.saveRecord) }
    return effects
  }

  /// After a new connection replaced a lost one, a pick the server does not show was lost
  /// with the old connection: it is sent again (the same commitment, in a fair room), so
  /// a key pressed during an outage is not lost and the match does not wait for ever.
  private func lostPick(_ state: ClientState, view: RoomView) -> ClientEffect.Message? {
    guard let weapon = state.context.pendingPick, view.phase == .choosing, let me = view.you,
      view.player(me)?.chosen == false
    else { return nil }
    if view.fair {
      guard let secret = state.fair.secret(for: view.round) else { return nil }
      return .commit(round: view.round, digest: secret.digest)
    }
    return .choose(round: view.round, weapon: weapon)
  }

  /// Whether this player committed in the round under way, saw the opponent's commitment
  /// and is not shown to have revealed: the reveal is owed.
  private func owesReveal(_ state: ClientState) -> Bool {
    guard let view = state.view, view.fair, view.phase == .choosing, let me = view.you,
      let mine = view.player(me), mine.chosen, !mine.revealed,
      state.fair.opponentCommitments[view.round] != nil
    else { return false }
    return state.fair.secret(for: view.round) != nil
  }

  /// A fair room's view: record the opponent's commitment the first time it is shown,
  /// reveal this client's secret only then, and check every round that resolved.
  private func checkFairPlay(_ state: inout ClientState, view: RoomView) {
    state.fair.revealNow = nil
    guard let me = view.you else {
      checkAsSpectator(&state, view: view)
      return
    }
    if view.phase == .choosing, let shown = view.player(me.opponent)?.commitment,
      state.fair.opponentCommitments[view.round] == nil
    {
      state.fair.opponentCommitments[view.round] = shown
    }
    if view.phase == .choosing, let secret = state.fair.secrets[view.round],
      state.fair.opponentCommitments[view.round] != nil,
      view.player(me)?.commitment == secret.digest,
      view.player(me)?.revealed == false,
      !state.fair.revealed.contains(view.round)
    {
      state.fair.revealed.insert(view.round)
      state.fair.revealNow = view.round
    }
    if view.phase == .choosing, view.player(me)?.revealed == true,
      state.fair.revealed.contains(view.round)
    {
      state.fair.acknowledged.insert(view.round)
    }
    let ruleset = Ruleset.named(view.ruleset)
    for result in view.history where state.fair.verdicts[result.round] == nil {
      let secret = state.fair.secrets[result.round]
      let shown = state.fair.opponentCommitments[result.round]
      // Only rounds this client took part in are judged (not those before it joined).
      guard secret != nil || shown != nil else { continue }
      let verdict = FairPlay.verdict(
        of: result, room: view.room, me: me, ruleset: ruleset, secret: secret,
        opponentCommitmentShown: shown, revealed: state.fair.revealed.contains(result.round),
        acknowledged: state.fair.acknowledged.contains(result.round))
      state.fair.secrets[result.round] = nil
      state.fair.opponentCommitments[result.round] = nil
      record(verdict, for: result, in: &state) { reason in
        FairPlay.Evidence(
          room: view.room, round: result.round, seat: me, reason: reason, secret: secret,
          opponentCommitmentShown: shown, reported: result)
      }
    }
    checkUnreported(&state, view: view, me: me)
    checkMatch(&state, view: view, me: me)
    bound(&state, view: view)
  }

  /// A round this client committed in must be reported before the match moves past it:
  /// one the view's history should show and does not is a lie, and so is a match that
  /// ends with it unreported, unless a player left (a forfeit ends the match mid-round).
  private func checkUnreported(_ state: inout ClientState, view: RoomView, me: Seat) {
    let oldestShown = view.history.first?.round ?? view.round
    for (round, secret) in state.fair.secrets.sorted(by: { $0.key < $1.key }) {
      let verdict: FairPlay.Verdict
      if round < view.round {
        verdict =
          round >= oldestShown
          ? .lie("round \(round), which you committed to, was never reported")
          : .unverifiable("round \(round) is older than the history the server keeps")
      } else if view.phase == .over {
        verdict =
          view.players.contains(where: \.left)
          ? .unverifiable("the match ended by forfeit before round \(round) resolved")
          : .lie("the match ended without reporting round \(round), which you committed to")
      } else {
        continue
      }
      let shown = state.fair.opponentCommitments.removeValue(forKey: round)
      state.fair.secrets[round] = nil
      let missing = RoundResult.unreported(round)
      record(verdict, for: missing, in: &state) { reason in
        FairPlay.Evidence(
          room: view.room, round: round, seat: me, reason: reason, secret: secret,
          opponentCommitmentShown: shown, reported: missing)
      }
    }
  }

  /// The scores and the winner must follow from the rounds (``FairPlay/matchLie(in:me:)``).
  private func checkMatch(_ state: inout ClientState, view: RoomView, me: Seat?) {
    guard state.fair.evidence == nil, let reason = FairPlay.matchLie(in: view, me: me) else {
      return
    }
    let last = view.history.last ?? RoundResult.unreported(view.round)
    state.fair.evidence = FairPlay.Evidence(
      room: view.room, round: last.round, seat: me, reason: reason, secret: nil,
      opponentCommitmentShown: nil, reported: last,
      reportedMatch: .init(
        scores: Seat.allCases.map { view.player($0)?.score ?? 0 }, winner: view.winner))
    state.context.notice = "The server cheated: \(reason)."
  }

  /// A spectator checks every round too: both commitments as shown before the reveals,
  /// then each reported weapon against its commitment.
  private func checkAsSpectator(_ state: inout ClientState, view: RoomView) {
    if view.phase == .choosing, state.fair.shownToSpectator[view.round] == nil {
      var shown: [Seat: String] = [:]
      for player in view.players { shown[player.seat] = player.commitment }
      if shown.count == 2 { state.fair.shownToSpectator[view.round] = shown }
    }
    let ruleset = Ruleset.named(view.ruleset)
    for result in view.history where state.fair.verdicts[result.round] == nil {
      guard let shown = state.fair.shownToSpectator.removeValue(forKey: result.round) else {
        continue
      }
      let verdict = FairPlay.spectatorVerdict(
        of: result, room: view.room, ruleset: ruleset, shown: shown)
      record(verdict, for: result, in: &state) { reason in
        FairPlay.Evidence(
          room: view.room, round: result.round, seat: nil, reason: reason, secret: nil,
          opponentCommitmentShown: nil, reported: result)
      }
    }
    checkMatch(&state, view: view, me: nil)
    bound(&state, view: view)
  }

  /// Keeps `verdict` for `result`'s round; the first lie becomes the evidence (made by
  /// `evidence` from the lie's reason) and the notice.
  private func record(
    _ verdict: FairPlay.Verdict, for result: RoundResult, in state: inout ClientState,
    evidence: (String) -> FairPlay.Evidence
  ) {
    state.fair.verdicts[result.round] = verdict
    guard case .lie(let reason) = verdict, state.fair.evidence == nil else { return }
    state.fair.evidence = evidence(reason)
    state.context.notice = "The server cheated in round \(result.round): \(reason)."
  }

  /// Bounded: only the rounds a view can show keep their verdicts.
  private func bound(_ state: inout ClientState, view: RoomView) {
    if let oldest = view.history.first?.round {
      state.fair.verdicts = state.fair.verdicts.filter { $0.key >= oldest }
    }
  }
}

extension RoundResult {
  /// A round the server never reported: no weapons, no winner (what the evidence of a
  /// round left unreported, or broken off, holds as "reported").
  static func unreported(_ round: Int) -> RoundResult {
    RoundResult(round: round, weapons: [nil, nil], winner: nil, reason: nil)
  }
}
