import Foundation
import RoshamboClient
import Testing

/// What a player asks Agones' allocator (``FleetAllocation``), and what its answers mean.
@Suite("Asking the fleet's allocator")
struct FleetAllocationTests {
  func request(_ purpose: FleetAllocation.Purpose) throws -> [String: Any] {
    let body = FleetAllocation(purpose: purpose, namespace: "games", fleet: "rps").requestBody()
    return try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
  }

  func selectors(_ request: [String: Any]) -> [[String: Any]] {
    request["gameServerSelectors"] as? [[String: Any]] ?? []
  }

  @Test(
    "a named room: the server holding it, else one in use with space, else a Ready one; the name is added"
  )
  func namedRoom() throws {
    let request = try request(.room("final"))
    #expect(request["namespace"] as? String == "games")
    let selectors = selectors(request)
    #expect(
      selectors.map { $0["gameServerState"] as? String } == [
        "ALLOCATED", "READY", "ALLOCATED", "READY",
      ])
    #expect(
      selectors.allSatisfy {
        ($0["matchLabels"] as? [String: String]) == ["agones.dev/fleet": "rps"]
      })
    let lists = selectors.map { ($0["lists"] as? [String: [String: String]])?["rooms"] }
    #expect(
      lists == [["containsValue": "final"], ["containsValue": "final"], ["minAvailable": "1"], nil])
    #expect(
      (request["lists"] as? [String: [String: [String]]]) == ["rooms": ["addValues": ["final"]]])
    #expect(request["counters"] == nil)
  }

  @Test("quick match: a server with a player waiting first; the player is counted on the way")
  func quickMatch() throws {
    let request = try request(.quickMatch)
    let selectors = selectors(request)
    let counters = selectors.map { ($0["counters"] as? [String: [String: String]])?["waiting"] }
    #expect(counters == [["minCount": "1"], ["minCount": "1"], nil, nil])
    #expect(
      selectors.map { $0["gameServerState"] as? String } == [
        "ALLOCATED", "READY", "ALLOCATED", "READY",
      ])
    #expect(
      (request["counters"] as? [String: [String: String]])
        == ["waiting": ["action": "Increment", "amount": "1"]])
    #expect(request["lists"] == nil)
  }

  @Test("watching: only a server holding the room, and nothing is changed")
  func watching() throws {
    let request = try request(.watch("final"))
    let lists = selectors(request).map { ($0["lists"] as? [String: [String: String]])?["rooms"] }
    #expect(lists == [["containsValue": "final"], ["containsValue": "final"]])
    #expect(request["lists"] == nil && request["counters"] == nil)
  }

  @Test("an answer gives the address and the port named game; a bad one is said")
  func answers() throws {
    let allocation = FleetAllocation(purpose: .quickMatch)
    let good =
      #"{"gameServerName":"rps-x1","address":"10.1.2.3","ports":[{"name":"metrics","port":9464},{"name":"game","port":7612}],"nodeName":"n"}"#
    #expect(
      try allocation.allocated(from: Array(good.utf8))
        == .init(gameServerName: "rps-x1", host: "10.1.2.3", port: 7612))
    for (bad, said) in [
      ("nonsense", "not a JSON object"),
      (#"{"ports":[{"name":"game","port":7612}]}"#, "names no server address"),
      (#"{"address":"a b","ports":[{"name":"game","port":7612}]}"#, "names no server address"),
      (
        #"{"address":"10.1.2.3","ports":[{"name":"x","port":1},{"name":"y","port":2}]}"#,
        "no port named"
      ),
      (#"{"address":"10.1.2.3","ports":[{"name":"game","port":70000}]}"#, "no port named"),
    ] {
      #expect(throws: AllocatorFailure.self) { try allocation.allocated(from: Array(bad.utf8)) }
      do {
        _ = try allocation.allocated(from: Array(bad.utf8))
      } catch {
        #expect(error.kind == .badAnswer)
        #expect(error.message.contains(said), "\(error.message)")
      }
    }
  }

  @Test(
    "refusals in a player's words: nothing matched, a clash, the rest with the allocator's message escaped"
  )
  func failures() {
    let exhausted = Array(
      #"{"code":8,"message":"there is no available GameServer to allocate"}"#.utf8)
    let full = FleetAllocation(purpose: .room("final")).failure(status: 429, body: exhausted)
    #expect(full.kind == .noServer)
    #expect(full.message.contains("has no server with room to spare"))
    let watch = FleetAllocation(purpose: .watch("final")).failure(status: 429, body: exhausted)
    #expect(watch.message == #"no server in the fleet "roshambo" holds the room "final""#)
    #expect(
      FleetAllocation(purpose: .quickMatch).failure(status: 409, body: []).kind == .contention)
    let hostile = Array(#"{"code":7,"message":"denied\u001b[2J\nroshambo: fake"}"#.utf8)
    let refused = FleetAllocation(purpose: .quickMatch).failure(status: 403, body: hostile)
    #expect(refused.kind == .refused)
    #expect(!refused.message.contains("\u{1b}") && !refused.message.contains("\n"))
    #expect(refused.message.contains("--allocator-cert"))
  }
}
