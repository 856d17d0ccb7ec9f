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

struct History: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print finished matches and a leaderboard, or one match round by round.",
    discussion: """
      Reads the journal in --data-dir (data/ by default; give it before or after \
      `history`): a server running there holds its journal and is asked over \
      journal.sock in that directory; when none runs, the file itself is read, \
      read-only. Which of the two it did is said on standard error. Each match is listed with \
      its number; `history NUMBER` prints that match's rounds and checks the record \
      (as `roshambo verify` does). With --json, one record per line (the format in \
      docs/MATCH-RECORD.md), for `roshambo replay FILE` and `roshambo verify FILE`. Names \
      and rooms in text are printed quoted, with anything unprintable escaped.

      The leaderboard ranks players by rating (Glicko-2, as lichess rates): "1623 ±48" is \
      a rating and its uncertainty (one standard deviation); "1500?" is provisional, a \
      player with too few matches for it to mean much yet.

      With --history-url (before or after `history`), prints the shared history's \
      latest matches and leaderboard instead: the whole fleet's. --rate-again then rates \
      every match of the shared history again, in the order stored (for ratings another \
      program changed).

      Exit status: 0 printed; 64 a bad flag; 65 a journal that cannot be read; 66 no \
      journal, or no such match; 69 the running server or the shared history cannot be \
      reached.
      """)

  /// `--data-dir`, given before or after `history`, is the server's own option.
  @ParentCommand var server: RoshamboServerCommand

  @Argument(help: ArgumentHelp("One match to print, by its number.", valueName: "match"))
  var match: Int64?

  @Option(help: "How many recent matches to show.")
  var limit = 20

  @Option(help: "Only matches this player played (the exact name).")
  var player: String?

  @Option(
    help: ArgumentHelp(
      "Only matches finished at or after this time: 2026-11-25, 2026-11-25T18:00:00Z or ms since 1970.",
      valueName: "time"))
  var since: Moment?

  @Option(
    help: ArgumentHelp("Only matches finished before this time (as --since).", valueName: "time"))
  var until: Moment?

  @Flag(help: "Print records as JSON, one per line.")
  var json = false

  @Flag(
    help: "With --history-url: rate every match of the shared history again, in the order stored.")
  var rateAgain = false

  func validate() throws {
    guard (1...10_000).contains(limit) else {
      throw ValidationError("--limit must be from 1 to 10000.")
    }
  }

  func run() async throws {
    if rateAgain, server.options.historyAddress == nil {
      complain(
        "--rate-again rates a shared history: give --history-url. (A journal whose ratings "
          + "another program changed is rated again by starting the server with --recover.)")
      throw ExitCode(ExitStatus.usage)
    }
    if let address = server.options.historyAddress {
      let history = SharedHistory(address: address, logger: Logger(label: "roshambo.history"))
      if rateAgain {
        do {
          try await history.rateAgain()
          await history.close()
          print("rated every match of the shared history at \(address) again, in the order stored")
        } catch {
          await history.close()
          complain("cannot rate the shared history at \(address): \(SharedHistory.explain(error))")
          throw ExitCode(ExitStatus.unavailable)
        }
        return
      }
      do {
        let matches = try await history.recentMatches(limit: limit)
        // The host sees every player, also those the lobby does not list yet.
        let board = try await history.leaderboard(limit: 10, listedOpponents: 0)
        await history.close()
        print(MatchHistory.report(matches: matches, board: board))
      } catch {
        await history.close()
        complain("cannot read the shared history at \(address): \(SharedHistory.explain(error))")
        throw ExitCode(ExitStatus.unavailable)
      }
      return
    }
    let question: JournalQuestion.Kind
    if let id = match {
      question = .match(id: id, json: json)
    } else {
      let filter = MatchHistory.Filter(
        player: player, since: since?.millis, until: until?.millis, limit: limit)
      question = .matches(filter, json: json)
    }
    try JournalQuestion(question).askAndPrint(dataDirectory: server.options.dataDir)
  }
}

extension JournalQuestion {
  /// Asks the server running on `dataDirectory` or, when none runs, reads the journal
  /// there; prints the answer, says on standard error which it did, and exits with the
  /// answer's status.
  func askAndPrint(dataDirectory: String) throws {
    let (answer, source) = ask(dataDirectory: dataDirectory)
    switch source {
    case .server:
      complain("(asked the server running on \(dataDirectory)/, which holds its journal)")
    case .file: complain("(read \(dataDirectory)/roshambo.sqlite: no server is running on it)")
    case .neither: break
    }
    if !answer.printed.isEmpty { print(answer.printed) }
    if let complaint = answer.complaint { complain(complaint) }
    if answer.status != 0 { throw ExitCode(answer.status) }
  }
}

/// A moment on the command line: a date (midnight UTC), a date and time in ISO 8601, or
/// milliseconds since 1970.
struct Moment: ExpressibleByArgument {
  var millis: Int64

  init?(argument: String) {
    if let millis = Int64(argument), millis >= 0 {
      self.millis = millis
      return
    }
    let full = ISO8601DateFormatter()
    let day = ISO8601DateFormatter()
    day.formatOptions = [.withFullDate]
    guard let date = full.date(from: argument) ?? day.date(from: argument) else { return nil }
    millis = Int64(date.timeIntervalSince1970 * 1000)
  }
}
