import Foundation
import GameFixtures
import Logging
import ProcessFixtures
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHistory
@testable import RoshamboServer

/// The fleet's name book in a real PostgreSQL (issue 49): the table follows
/// ``FleetNameBook``'s rule, and a name held on one server of a fleet is refused to
/// another identity on the other.
@Suite(
  "Names shared by a fleet in PostgreSQL", .serialized, .enabled(if: PostgresProcess.available))
struct SharedNamesTests {
  static let day: Int64 = 86_400_000

  @Test("roshambo_names follows the book's rule, offer by offer, and is read back by version")
  func ruleInSQL() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let history = try SharedRatingsTests.history(postgres)
    try await history.migrate()
    var changed: [Bool] = []
    for (offer, now) in FleetNameScript.offers {
      let count = try await history.offer(
        [offer], serverID: "s1", now: now, lapseMillis: 30 * Self.day)
      changed.append(count == 1)
    }
    #expect(changed == FleetNameScript.changed)
    let (rows, through) = try await history.names(after: 0)
    // Each name read once, as last changed, in the order of their last changes.
    #expect(rows.map { $0.folded } == ["ann", "bob"])
    #expect(Dictionary(uniqueKeysWithValues: rows.map { ($0.folded, $0) }) == FleetNameScript.final)
    let (later, same) = try await history.names(after: through)
    #expect(later.isEmpty && same == through)
    // A row another program wrote that no server could have is no holder.
    _ = try postgres.psql(
      "INSERT INTO roshambo_names (folded, identity, used_at, server_id) VALUES ('Zed', 'x', 1, 'p')"
    )
    #expect(try await history.names(after: through).rows.isEmpty)
    await history.close()
  }

  @Test("a name held on one server of a fleet is refused to another identity on the other")
  func heldOnEveryServer() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    func configuration() throws -> ServerConfiguration {
      var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
      configuration.historyAddress = try HistoryAddress(parsing: postgres.url)
      return configuration
    }
    try await withServer(try configuration()) { first in
      try await withServer(try configuration()) { second in
        let ann = try await TestClient.connect(port: first.port, from: "127.0.0.2", as: "ann")
        guard case .welcome = try await ann.hello(name: "Ann", room: "den") else {
          Issue.record("Ann was not welcome on the first server")
          return
        }
        // Ann's claim reaches the book first; until the second server has read it, Mallory
        // is let in there under the name (and her claim of it is refused by the book).
        for _ in 0..<300 {
          if (try? postgres.psql("SELECT count(*) FROM roshambo_names")) == "1" { break }
          try await Task.sleep(for: .milliseconds(100))
        }
        var refusal: ProtocolError?
        for attempt in 0..<300 where refusal == nil {
          let mallory = try await TestClient.connect(
            port: second.port, from: "127.0.0.3", as: "mallory")
          if case .error(let error, _) = try await mallory.hello(
            name: "ANN", room: "hall\(attempt)")
          {
            refusal = error
          } else {
            try await Task.sleep(for: .milliseconds(100))
          }
          await mallory.close()
        }
        #expect(
          refusal?.code == .nameTaken,
          "\((try? postgres.psql("SELECT * FROM roshambo_names")) ?? "")")
        #expect(
          refusal?.message.contains("belongs to another player") == true,
          "\(String(describing: refusal))")
        // Ann herself is welcome there under it.
        let annThere = try await TestClient.connect(port: second.port, from: "127.0.0.2", as: "ann")
        guard case .welcome = try await annThere.hello(name: "Ann", room: "porch") else {
          Issue.record("Ann was refused her own name on the second server")
          return
        }
        let holder = try postgres.psql("SELECT count(*) FROM roshambo_names WHERE folded = 'ann'")
        #expect(holder == "1")
      }
    }
  }
}
