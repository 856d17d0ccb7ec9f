import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO
import RoshamboGame
import RoshamboServer

/// A history shared by a fleet of servers, in PostgreSQL: every server's finished
/// matches, keyed by the server's journal id and the match's number there, and one
/// leaderboard kept beside them, ranked by rating.
///
/// A player is kept by their player identity (``key(name:identity:)``), not by a name: a
/// name held by one identity on one server may be another's on another server, and a
/// rating belongs to the person. A keyless player's matches are kept under the name they
/// used, and rate nobody.
///
/// Invariants: a match stored twice (a retry after a crash) is one row, and counts once in
/// the standings: they move only for a row the insert really added. Matches are rated in
/// the order they were stored (`rated_order`, one store at a time), so each row's ratings
/// and the standings' are what folding the rows in that order gives
/// (``recomputedRatings()``).
public final class SharedHistory: Sendable {
  public let address: HistoryAddress
  let client: PostgresClient
  /// Where the client's connections run: threads of their own, never the game's.
  private let group: MultiThreadedEventLoopGroup
  let logger: Logger
  private let running: Task<Void, Never>
  /// Digests of the names and rooms read back that broke the protocol's rule and were
  /// said in the log (each once; at most ``maxReported`` remembered).
  let reported = NIOLockedValueBox<Set<[UInt8]>>([])
  static let maxReported = 1_000

  /// The key a player is kept by: their identity ("k:" and its 64 hex digits), or for a
  /// keyless player the name they used ("n:" and the name). The two never meet.
  public static func key(name: String, identity: String?) -> String {
    identity.map { "k:" + $0 } ?? "n:" + name
  }

  /// The keys of `match`'s seats (seat 1's, then seat 2's).
  static func keys(of match: FinishedMatch) -> [String] {
    zip(match.players, match.identities + [nil, nil]).map { key(name: $0, identity: $1) }
  }

  /// Connects lazily (the first query opens a connection); nothing is sent until then.
  public init(address: HistoryAddress, logger: Logger) {
    self.address = address
    self.logger = logger
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    self.group = group
    var configuration = PostgresClient.Configuration(
      host: address.host, port: address.port, username: address.user,
      password: address.password, database: address.database,
      tls: address.requiresTLS ? .require(.makeClientConfiguration()) : .disable)
    configuration.options.maximumConnections = 2
    configuration.options.connectTimeout = .seconds(5)
    let client = PostgresClient(configuration: configuration, eventLoopGroup: group)
    self.client = client
    running = Task { await client.run() }
  }

  /// Stops the client and its threads.
  public func close() async {
    running.cancel()
    await running.value
    try? await group.shutdownGracefully()
  }

  /// `body` in one transaction. A ``HistoryError`` it throws comes out as itself (the
  /// client wraps what the body throws in its own error, which would hide the words).
  func transaction<Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    do {
      return try await client.withTransaction(logger: logger, isolation: isolation) {
        try await body($0)
      }
    } catch let failed as PostgresTransactionError {
      if let said = failed.closureError as? HistoryError { throw said }
      throw failed
    }
  }
}

extension SharedHistory {
  /// An error from PostgreSQL or the journal in the host's words (no library internals).
  public static func explain(_ error: any Error) -> String {
    if let history = error as? HistoryError { return history.description }
    let text = String(reflecting: error)
    if text.contains("connectionError") || text.contains("Connection refused")
      || text.contains("connect")
    {
      return "nothing answers there (is PostgreSQL running, and the address right?)"
    }
    if text.contains("password") || text.contains("28P01") || text.contains("28000") {
      return "PostgreSQL refused the user or password"
    }
    if text.contains("3D000") { return "the database does not exist (create it first)" }
    if text.contains("42501") { return "the user may not create or write the tables" }
    return "PostgreSQL failed (\(String(describing: error).prefix(200)))"
  }
}

/// A problem with the shared history, in the host's words.
public struct HistoryError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
