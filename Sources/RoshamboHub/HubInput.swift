import RoshamboGame
import RoshamboProtocol

/// Everything that can happen to the hub, handed to ``HubCore/handle(_:now:)`` one at a
/// time by its driver: what connections said and did, timers, and what the journal
/// answered.
///
/// Invariant: an input carries what happened, never what to do about it; the hub
/// decides that.
package enum HubInput {
  /// The server started on the lobby the journal holds: every seat that was connected
  /// starts its grace, the tournament goes on, and `releasing` names lose their holder.
  case start(releasing: [String])
  /// A connection sent a message (a `ping` is answered by the connection itself).
  case received(ClientMessage, from: Peer)
  /// The connection refused itself fatally (a flood, a bad frame, silence): the error
  /// and the close go out after what the hub answered it before.
  case refused(Peer, ProtocolError, re: Int?)
  /// The connection is gone.
  case closed(Peer)
  /// A timer the hub scheduled (``HubOutput/schedule(_:at:)``) is due.
  case timerFired(HubTimer)
  /// The commit the hub asked for (``HubOutput/commit(_:)``) is durable, or failed;
  /// `onJournalThread`: it ran on the journal's thread, not inline.
  case committed(Result<Void, JournalFailure>, onJournalThread: Bool)
  /// The lobby read back from the journal after a failed commit (``HubOutput/reload``),
  /// with the number of its last row.
  case reloaded(Result<(LobbyState, Int64), JournalFailure>)
  /// The snapshot the hub asked for (``HubOutput/writeSnapshot(_:through:)``) is written,
  /// or failed (the journal keeps every action and grows until one succeeds).
  case snapshotWritten(Result<Void, JournalFailure>)
  /// The probe write (``HubOutput/probe(at:)``) finished.
  case probed(succeeded: Bool)
  /// The leaderboard's top and the latest matches, read (``HubOutput/readStandings``).
  case standingsRead(Result<([LobbyView.Leader], [FinishedMatch]), JournalFailure>)
  /// The fleet's shared leaderboard, read by the history link: shown instead.
  case sharedLeadersRead([LobbyView.Leader])
  /// Rows of the fleet's name book that changed since the last read (all of them at the
  /// first): a name another identity holds there is not held here.
  case fleetNamesRead([FleetName])
  /// A kept match read for reading number `reading` (``HubOutput/readRecord(reading:match:)``).
  case recordRead(reading: Int, Result<FinishedMatch?, JournalFailure>)
  /// The party's board asked for kept match `match`'s record, as its request number
  /// `request`: the answer is a ``BoardRecordAnswer`` delivered to ``Delivery/boardID``.
  case boardAskedForRecord(request: Int, match: Int64)
  /// The host asked to drain: end within `withinMillis`.
  case drainRequested(withinMillis: Int64)
  /// The host insisted (a second signal): the drain ends now.
  case drainCut
  /// The server stops: make everything pending durable, then say ``HubOutput/idle``.
  case shutdown
}

/// Why the journal could not do what was asked, in words for the log.
package struct JournalFailure: Error, Equatable, Sendable, CustomStringConvertible {
  package var description: String
  package init(_ description: String) { self.description = description }
}
