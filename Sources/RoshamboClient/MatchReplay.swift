import RoshamboGame
import RoshamboProtocol

/// A finished match played back from its record: the actions a spectator's client would
/// have received (a `welcome`, then for each round the `state` that shows both
/// commitments in a fair match, and the `state` with its result), re-reduced through the
/// client's own reducer up to any step, so a replay shows exactly the screen of live
/// play, and the reducer checks each fair round as it checked it live (a forged record
/// shows as the server caught lying). Step 0 is the first round open; step k follows the
/// k-th round kept; the last step is the match over.
///
/// Invariants: ``position`` is always within `0...lastStep`; ``state`` is the reduction
/// of ``actions(through:)`` for the position, from a fresh ``ClientState``.
public struct MatchReplay: Sendable {
  public let match: FinishedMatch
  /// The views after each step: `views[0]` with no round played.
  public let views: [RoomView]
  /// In a fair match, the view that showed both commitments of the round each step
  /// resolves (nil for step 0, and where a seat made none).
  private let commitments: [RoomView?]
  public private(set) var position = 0
  public private(set) var state: ClientState

  /// A replay of `record` at its start; nil when it keeps no rounds. The record's
  /// text is made safe to print first (``FinishedMatch/sanitized()``), as live play's is.
  public init?(_ record: FinishedMatch) {
    let match = record.sanitized()
    guard let rounds = match.rounds, let ruleset = Ruleset.ID(rawValue: match.ruleset) else {
      return nil
    }
    self.match = match
    // Rounds a long match no longer keeps still count in the scores: what the final
    // scores have beyond the kept rounds' wins is where the replay's scores start.
    let kept = Seat.allCases.map { seat in rounds.filter { $0.winner == seat }.count }
    // (A record's score may be anything: at most the kept wins, it starts from 0.)
    let base = Seat.allCases.map { seat in
      let score = match.scores[seat.rawValue - 1]
      let wins = kept[seat.rawValue - 1]
      return score <= wins ? 0 : score - wins
    }
    let winnerSeat = Seat.allCases.first { match.players[$0.rawValue - 1] == match.winner }
    var views: [RoomView] = []
    for step in 0...rounds.count {
      let played = Array(rounds.prefix(step))
      let over = step == rounds.count
      let players = Seat.allCases.map { seat in
        PlayerView(
          seat: seat, name: match.players[seat.rawValue - 1], connected: true, chosen: false,
          weapon: nil,
          score: base[seat.rawValue - 1] + played.filter { $0.winner == seat }.count,
          left: over && match.forfeit && seat != winnerSeat)
      }
      views.append(
        RoomView(
          room: match.room, ruleset: ruleset, bestOf: match.bestOf,
          phase: over ? .over : .choosing,
          // Given up, the match ended in the round after the last one played, as live.
          round: over
            ? (rounds.last?.round ?? 0) + (match.forfeit ? 1 : 0) : rounds[step].round,
          you: nil,
          players: players, history: played, winner: over ? winnerSeat : nil, deadline: nil,
          fair: match.fair))
    }
    self.views = views
    // A fair round's reveal stage, as a spectator saw it: both commitments in, nothing
    // revealed, the scores before the round.
    self.commitments = views.indices.map { step in
      guard step > 0, match.fair else { return nil }
      let round = rounds[step - 1]
      guard let first = round.commitment(of: .one), let second = round.commitment(of: .two)
      else { return nil }
      var view = views[step - 1]
      view.phase = .choosing
      view.round = round.round
      view.winner = nil
      for index in view.players.indices {
        view.players[index].chosen = true
        view.players[index].left = false
        view.players[index].commitment = view.players[index].seat == .one ? first : second
      }
      return view
    }
    self.state = Self.reduce(
      Self.actions(match: match, views: views, commitments: commitments, through: 0))
  }

  /// The last step: the match over.
  public var lastStep: Int { views.count - 1 }

  /// The round the position shows the result of, or nil at the start.
  public var roundShown: RoundResult? {
    position == 0 ? nil : views[position].history.last
  }

  /// The actions that lead to step `step`: the welcome, then each state up to it.
  public func actions(through step: Int) -> [ClientAction] {
    Self.actions(match: match, views: views, commitments: commitments, through: step)
  }

  private static func actions(
    match: FinishedMatch, views: [RoomView], commitments: [RoomView?], through step: Int
  ) -> [ClientAction] {
    let shown = (0...step).flatMap { [commitments[$0], views[$0]].compactMap { $0 } }
    return [.connection(.connected), .welcome(room: match.room, seat: nil, token: nil)]
      + shown.enumerated().map { .synced(view: $0.element, seq: $0.offset) }
  }

  private static func reduce(_ actions: [ClientAction]) -> ClientState {
    var state = ClientState()
    let reducer = ClientReducer()
    for action in actions { reducer.reduce(into: &state, action: action) }
    return state
  }

  /// Moves to `step` (clamped to the match) by re-reducing from the start.
  public mutating func seek(to step: Int) {
    position = min(max(0, step), lastStep)
    state = Self.reduce(actions(through: position))
  }

  public mutating func stepForward() { seek(to: position + 1) }
  public mutating func stepBack() { seek(to: position - 1) }
}
