import Foundation
import RoshamboProtocol

/// What a player asks Agones' allocator service for (`POST /gameserverallocation`, its
/// REST form), and what its answer means. The game servers keep the List `rooms` and
/// the Counters `players` and `waiting` current, so the allocator's own selectors do
/// the routing:
///
/// - a named room: the server whose `rooms` List holds it; else one already allocated
///   with space in its List; else a Ready one. The allocator adds the name to the List
///   it chose, so the next player asking for that room goes to the same server.
/// - quick match: a server whose `waiting` Counter is above zero; else one already
///   allocated; else a Ready one. The allocator counts the player on the way
///   (`waiting` + 1), so the next quick-match player follows.
/// - watching: only the server whose `rooms` List holds the room.
///
/// Invariant: every selector matches only GameServers of ``fleet`` (the label
/// `agones.dev/fleet`), and the request is JSON the allocator's REST gateway reads.
public struct FleetAllocation: Sendable, Equatable {
  public enum Purpose: Sendable, Equatable {
    case room(String)
    case quickMatch
    case watch(String)
  }

  public var purpose: Purpose
  /// The Kubernetes namespace the fleet runs in.
  public var namespace: String
  /// The Fleet's name.
  public var fleet: String

  public init(purpose: Purpose, namespace: String = "default", fleet: String = "roshambo") {
    self.purpose = purpose
    self.namespace = namespace
    self.fleet = fleet
  }

  /// The server the allocator chose.
  public struct Allocated: Sendable, Equatable {
    public var gameServerName: String
    public var host: String
    public var port: Int

    public init(gameServerName: String, host: String, port: Int) {
      self.gameServerName = gameServerName
      self.host = host
      self.port = port
    }
  }

  /// The request's JSON body (proto3's JSON: 64-bit integers as strings).
  public func requestBody() -> String {
    let labels = ["agones.dev/fleet": fleet]
    func selector(_ state: String, _ extra: [String: Any] = [:]) -> [String: Any] {
      ["matchLabels": labels, "gameServerState": state].merging(extra) { $1 }
    }
    func holding(_ room: String) -> [String: Any] {
      ["lists": ["rooms": ["containsValue": room]]]
    }
    var request: [String: Any] = ["namespace": namespace]
    switch purpose {
    case .room(let room):
      request["gameServerSelectors"] = [
        selector("ALLOCATED", holding(room)),
        selector("READY", holding(room)),
        selector("ALLOCATED", ["lists": ["rooms": ["minAvailable": "1"]]]),
        selector("READY"),
      ]
      request["lists"] = ["rooms": ["addValues": [room]]]
    case .quickMatch:
      let waiting = ["counters": ["waiting": ["minCount": "1"]]]
      request["gameServerSelectors"] = [
        selector("ALLOCATED", waiting), selector("READY", waiting), selector("ALLOCATED"),
        selector("READY"),
      ]
      request["counters"] = ["waiting": ["action": "Increment", "amount": "1"]]
    case .watch(let room):
      request["gameServerSelectors"] = [
        selector("ALLOCATED", holding(room)), selector("READY", holding(room)),
      ]
    }
    let data = try! JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }

  /// The server in a 200 answer: its name, its address, and the port named `game` (or
  /// the only one).
  public func allocated(from body: [UInt8]) throws(AllocatorFailure) -> Allocated {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    else { throw AllocatorFailure(.badAnswer, "the allocator's answer is not a JSON object") }
    let name = (object["gameServerName"] as? String) ?? ""
    let ports = (object["ports"] as? [[String: Any]]) ?? []
    let game =
      ports.first { $0["name"] as? String == "game" } ?? (ports.count == 1 ? ports[0] : nil)
    guard let address = object["address"] as? String, !address.isEmpty,
      address.utf8.count <= 253, address.allSatisfy({ $0.isASCII && !$0.isWhitespace })
    else {
      throw AllocatorFailure(.badAnswer, "the allocator's answer names no server address")
    }
    let port = (game?["port"] as? Int) ?? Int((game?["port"] as? String) ?? "")
    guard let port, (1...65_535).contains(port) else {
      throw AllocatorFailure(
        .badAnswer, "the allocator's answer has no port named \"game\" (the Fleet's port)")
    }
    return Allocated(
      gameServerName: UntrustedText.escaped(name, limit: 128), host: address, port: port)
  }

  /// What a non-200 answer means for this request. The REST gateway answers gRPC's
  /// errors as JSON (`{"code": 8, "message": …}`); `code` 8 (ResourceExhausted, HTTP 429)
  /// is "no GameServer matched", 10 (Aborted, HTTP 409) a clash with another allocation.
  public func failure(status: Int, body: [UInt8]) -> AllocatorFailure {
    let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    let code = object?["code"] as? Int
    let message = UntrustedText.escaped((object?["message"] as? String) ?? "", limit: 200)
    if status == 429 || code == 8 {
      switch purpose {
      case .watch(let room):
        return AllocatorFailure(
          .noServer, "no server in the fleet \"\(fleet)\" holds the room \"\(room)\"")
      case .room, .quickMatch:
        return AllocatorFailure(
          .noServer,
          "the fleet \"\(fleet)\" has no server with room to spare; try again in a moment, or "
            + "ask its operator to let it grow (its FleetAutoscaler)")
      }
    }
    if status == 409 || code == 10 {
      return AllocatorFailure(.contention, "another allocation changed the server first")
    }
    return AllocatorFailure(
      .refused,
      "the allocator answered \(status)" + (message.isEmpty ? "" : ": \(message)")
        + (status == 401 || status == 403
          ? " (is --allocator-cert a client certificate the allocator accepts?)" : ""))
  }
}

/// Why the allocator gave no server.
public struct AllocatorFailure: Error, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// Nothing matched: the fleet is full, or no server holds the room to watch.
    case noServer
    /// Another allocation changed the chosen server first; asking again may succeed.
    case contention
    /// The allocator refused the request (its certificate check, a bad namespace, …).
    case refused
    /// The answer is not one the allocator gives.
    case badAnswer
    /// The allocator could not be reached, or the TLS handshake with it failed.
    case unreachable
  }

  public var kind: Kind
  public var message: String
  public var description: String { message }

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }
}
