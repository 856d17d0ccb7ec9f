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
      Rebuilds the rooms from the journal in --data-dir, read-only, through the same \
      reducer the server starts with: the snapshot, then each row up to --until (every \
      row without it). For looking into what a player reports: the rooms, seats, scores \
      and whether a pick was in, never which. Rows before the snapshot are gone; it says \
      so.

      Exit status: 0 printed; 65 a row that cannot be shown or replayed; 66 no journal.
      """)

  @ParentCommand var server: RoshamboServerCommand

  @Option(help: "The last row to replay (the journal's row number, from 1).")
  var until: Int64?

  func run() throws {
    let dataDir = server.options.dataDir
    guard FileManager.default.fileExists(atPath: dataDir + "/roshambo.sqlite") else {
      complain("no journal in \(dataDir)/ (run the server first, or give --data-dir).")
      throw ExitCode(ExitStatus.noInput)
    }
    do {
      print(try JournalReplay(dataDirectory: dataDir).report(until: until))
    } catch let unreachable as JournalReplay.Unreachable {
      complain(unreachable.description)
      throw ExitCode(ExitStatus.dataError)
    } catch let journal as JournalError {
      complain(journal.description)
      throw ExitCode(ExitStatus.dataError)
    }
  }
}
