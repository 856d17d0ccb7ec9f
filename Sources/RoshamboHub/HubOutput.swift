import RoshamboGame
import RoshamboProtocol

/// Everything the hub wants done, returned by ``HubCore/handle(_:now:)`` in the order it
/// is to be done; the driver does it and hands back what came of it as a ``HubInput``.
///
/// Invariant: no output carries a weapon of a round that has not resolved; a
/// `deliver` of anything an accepted action changed comes only after that action's
/// `commit` was answered `committed` with success.
package enum HubOutput: Equatable, Sendable {
  /// Write these frames (and closes) to these connections, in order.
  case deliver([Delivery])
  /// Fire `timer` at `at` (ms since 1970), replacing the one of that key if any.
  case schedule(HubTimer, at: Int64)
  case cancel(HubTimer)
  /// Make these actions durable (answer with ``HubInput/committed(_:onJournalThread:)``).
  case commit(JournalCommit)
  /// Fold the journal into a snapshot: `lobby` is the lobby after row `through`, which is
  /// committed (answer with ``HubInput/snapshotWritten``).
  case writeSnapshot(LobbyState, through: Int64)
  /// Read the leaderboard's top and the latest matches (``HubInput/standingsRead(_:)``).
  case readStandings(leaders: Int, recent: Int)
  /// Read kept match `match` (``HubInput/recordRead(reading:_:)``).
  case readRecord(reading: Int, match: Int64)
  /// Read the lobby back as the journal holds it (``HubInput/reloaded(_:)``).
  case reload(defaults: RoomState.Settings)
  /// One small write, to learn whether the journal can be written again
  /// (``HubInput/probed(succeeded:)``).
  case probe(at: Int64)
  case log(HubLog)
  case count(HubCount)
  /// A sentence for the host's terminal (``HostNews``).
  case news(String)
  /// Tell the fleet's name book what this server's holders did (only when
  /// ``HubConfiguration/sharesNames``).
  case offerNames([NameOffer])
  /// The drain is over.
  case drained
  /// Everything sealed is committed and sent (after ``HubInput/shutdown``).
  case idle
}

/// Every timer the hub keeps, by what it is for: at most one of each at a time.
package enum HubTimer: Hashable, Sendable, CustomStringConvertible {
  /// Commit and send what gathered, once the driver has run what it queued before.
  case flush
  /// The lobby's followers may have their next view.
  case lobbyView
  /// The room's round times out.
  case deadline(room: String)
  /// A disconnected seat's grace runs out.
  case grace(room: String, seat: Seat)
  /// Entries close, the next round is paired, or the next tournament opens.
  case tournament
  /// An entrant whose connection dropped while entries are open loses the entry.
  case entryGrace(name: String)
  /// A challenge nobody answered expires.
  case challengeExpiry(id: Int)
  /// The drain's time is up.
  case drain
  /// A paused hub tries the journal again.
  case probe
  /// The leaderboard may be read again (at most every 2 s).
  case standings
  /// A reveal held for the other seat's (``HubCore/revealHoldMillis``) goes out alone.
  case heldReveal

  package var description: String {
    switch self {
    case .flush: "flush"
    case .lobbyView: "lobby-view"
    case .deadline(let room): "deadline \(room)"
    case .grace(let room, let seat): "grace \(room) seat \(seat.rawValue)"
    case .tournament: "tournament"
    case .entryGrace(let name): "entry-grace \(name)"
    case .challengeExpiry(let id): "challenge \(id)"
    case .drain: "drain"
    case .probe: "probe"
    case .standings: "standings"
    case .heldReveal: "held-reveal"
    }
  }
}

/// A frame (or a close) for some connections: one encoding for all of them.
package struct Delivery: Equatable, Sendable {
  package enum Kind: Equatable, Sendable {
    case state, error, other

    init(_ message: ServerMessage) {
      switch message {
      case .state: self = .state
      case .error: self = .error
      default: self = .other
      }
    }
  }
  /// The connections, by id.
  package var to: [Int]
  /// The encoded message (the frame's payload); nil: close the connection.
  package var payload: [UInt8]?
  package var kind: Kind
  /// A lobby view: written a slice at a time, conflated like a state.
  package var spread = false
  /// The view to every follower, for the board (only in a delivery to ``boardID``).
  package var sentLobbyView: SentLobbyView?
  /// The answer to the board's request for a record (only in a delivery to ``boardID``).
  package var boardRecord: BoardRecordAnswer?

  /// The id a delivery for the board is addressed to: no connection's (theirs count up
  /// from 1).
  package static let boardID = -1

  /// Whether it may still go out when the commit it waited for failed: errors, closes
  /// and the board's records (read from what the journal held) say nothing of what was
  /// not saved.
  var survivesFailedCommit: Bool { payload == nil || kind == .error || boardRecord != nil }
}

/// A lobby view as it went to every follower of the lobby: its `seq`, the view, and the
/// `lobby` message's bytes exactly as the followers got them.
///
/// Invariant: `message` is `ServerMessage.lobby(seq: seq, view: view)` encoded.
package struct SentLobbyView: Equatable, Sendable {
  package var seq: Int
  package var view: LobbyView
  package var message: [UInt8]

  package init(seq: Int, view: LobbyView, message: [UInt8]) {
    self.seq = seq
    self.view = view
    self.message = message
  }
}

/// Actions to make durable in one transaction, with the matches they finished.
package struct JournalCommit: Equatable, Sendable {
  package var actions: [LobbyAction]
  package var matches: [FinishedMatch]
  /// Later rows go to the table a snapshot being written replays.
  package var snapshotAfter: Bool
  /// Commit on the driver's thread if the journal is quick now (else on its own).
  package var inline: Bool
}

/// A line for the server's log. Never a pick before its round resolved.
package struct HubLog: Equatable, Sendable {
  package enum Level: Int, Comparable, Sendable {
    case debug, info, notice, error, critical
    package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
  }

  /// What the line records, as a value, for whoever reads the hub's log by program (the
  /// simulator's counts and invariants) rather than by its words.
  package enum Event: Equatable, Sendable {
    case roundResolved
    case matchOver
    /// Challenge `id` was accepted: its match is in `room`.
    case challengeAccepted(id: Int, room: String)
    case tournamentRoundPaired
    case tournamentFinished
    /// A seat taken back with its token.
    case resumed
    /// The seat's grace ran out: it is given up.
    case graceExpired(room: String, seat: Seat)
    /// An entrant away too long lost their tournament entry.
    case entryWithdrawn(name: String)
    case movedByQuickMatch
    case spectating
    case followingTheLobby
    /// A request the rules refused.
    case refused
    /// A seat taken back by who its player is (the token never reached them).
    case seatTakenBackByName
    /// A commit failed: play pauses until the journal can be written.
    case journalWriteFailed
    /// The lobby could not be read back after a failed commit.
    case journalReloadFailed
    /// A frame over the protocol's limit was not sent (a server bug).
    case frameOverLimit
  }

  package var level: Level
  package var message: String
  package var metadata: [String: String]
  /// What it records, for the lines a program reads (nil: words for people only).
  package var event: Event?

  init(
    _ level: Level, _ message: String, _ metadata: [String: String] = [:], event: Event? = nil
  ) {
    self.level = level
    self.message = message
    self.metadata = metadata
    self.event = event
  }
}

/// Something the metrics count.
package enum HubCount: Equatable, Sendable {
  case actionAccepted
  case roundResolved
  case matchFinished(forfeit: Bool, fair: Bool)
  case refused(ErrorCode)
  case recordSent
}
