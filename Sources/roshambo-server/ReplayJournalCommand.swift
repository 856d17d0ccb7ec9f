import ArgumentParser
import Foundation
import Logging
import NIOCore
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Sysexits
import UnixSignals

struct ReplayJournal: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Print the lobby as it stood after a row of the journal.",
    discussion: """
      Rebuilds the rooms from the journal in --data-dir (asking the server running \
      there, which holds it, or reading the file, read-only, when none runs; which, it \
      says on standard error), through the same reducer the server starts with: the snapshot, then each row up to --until (every \
      row without it). For looking into what a player reports: the rooms, seats, scores \
      and whether a pick was in, never which. Rows before the snapshot are gone; it says \
      so.

      Exit status: 0 printed; 65 a row that cannot be shown or replayed; 66 no journal; \
      69 the running server cannot be reached.
      """)

  @ParentCommand var server: RoshamboServerCommand

  @Option(help: "The last row to replay (the journal's row number, from 1).")
  var until: Int64?

  func run() throws {
    try JournalQuestion(.lobby(until: until)).askAndPrint(dataDirectory: server.options.dataDir)
  }
}
