import Foundation
import GRDB
import RoshamboGame
import RoshamboHub
import RoshamboProtocol
import RoshamboServer

/// The lobby as it stood after a given row of a journal, rebuilt read-only through the
/// start-up reducer (`roshambo-server replay --until N`): for looking into what a player
/// reports, beside a running server.
///
/// Invariant: read-only, like ``MatchHistory``; the lobby it shows is exactly what a
/// server starting from the journal cut after that row would hold.
public struct JournalReplay {
  private let database: DatabaseQueue
  private let path: String

  public init(dataDirectory: String) throws {
    (database, path) = try Journal.openReadOnly(dataDirectory: dataDirectory)
  }

  /// Why a row cannot be shown.
  public struct Unreachable: Error, CustomStringConvertible {
    public var description: String
  }

  /// The lobby after row `until` (nil: the last row), as text.
  public func report(until: Int64?, defaults: RoomState.Settings = RoomState.Settings()) throws
    -> String
  {
    try database.read { db in
      try Self.report(db, path: path, until: until, defaults: defaults)
    }
  }

  /// The lobby after row `until` (nil: the last row) of the journal at `path`, read on
  /// `db`, as text.
  static func report(
    _ db: Database, path: String, until: Int64?,
    defaults: RoomState.Settings = RoomState.Settings()
  ) throws -> String {
    let loaded = try Journal.load(db, path: path, defaults: defaults, until: until)
    if let until, until < loaded.snapshotThrough {
      throw Unreachable(
        description:
          "row \(until) is before the journal's snapshot, which holds every row through "
          + "\(loaded.snapshotThrough): the earliest state it can show is after row "
          + "\(loaded.snapshotThrough).")
    }
    // Rows are numbered without gaps, so fewer loaded than asked means the journal ends.
    if let until, until > loaded.lastRow {
      throw Unreachable(
        description: "row \(until) is past the journal's last row, \(loaded.lastRow).")
    }
    return Self.lines(loaded).joined(separator: "\n")
  }

  static func lines(_ loaded: Journal.Loaded) -> [String] {
    let lobby = loaded.lobby
    let quoted = { (text: String) in LogText.quoted(text) }
    var lines = [
      "After row \(loaded.lastRow) (the snapshot holds rows through \(loaded.snapshotThrough); "
        + "\(loaded.actions) row\(loaded.actions == 1 ? "" : "s") replayed after it):",
      "\(lobby.rooms.count) room\(lobby.rooms.count == 1 ? "" : "s")"
        + (lobby.quickMatchRoom.map { "; quick match waits in \(quoted($0))" } ?? ""),
    ]
    for name in lobby.rooms.keys.sorted() {
      let room = lobby.rooms[name]!
      let settings =
        "\(room.settings.ruleset.rawValue) best of \(room.settings.bestOf)"
        + (room.settings.fair ? ", fair" : "")
      let seats = Seat.allCases.compactMap { seat -> String? in
        guard let held = room.seats[seat] else { return nil }
        let status = held.hasLeft ? "left" : held.connected ? "connected" : "away"
        // A pick not yet resolved is never shown: only whether one is in.
        let picked = held.pick != nil || held.commitment != nil ? ", picked" : ""
        return "seat \(seat.rawValue) \(quoted(held.name)) \(held.score) (\(status)\(picked))"
      }
      let phase =
        room.phase == .choosing
        ? "round \(room.round)" : room.phase == .over ? "over" : "waiting"
      lines.append(
        "  \(quoted(name))  \(phase), \(settings)  "
          + (seats.isEmpty ? "no players" : seats.joined(separator: "  "))
          + (room.spectators > 0 ? "  \(room.spectators) watching" : ""))
    }
    if let tournament = lobby.tournament {
      lines.append(
        "tournament: \(tournament.kind.rawValue), \(tournament.phase), round "
          + "\(tournament.rounds.count) of \(tournament.roundCount), "
          + "\(tournament.entrants.count) entrants"
          + (tournament.champion.map { ", won by \(quoted($0))" } ?? ""))
    }
    return lines
  }
}
