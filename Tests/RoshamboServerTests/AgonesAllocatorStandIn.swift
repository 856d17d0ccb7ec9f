import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RoshamboTLS

/// A stand-in for Agones' allocator service, which cannot be had on these machines: its
/// REST `POST /gameserverallocation` over HTTPS with mutual TLS (a client without a
/// certificate the CA signed is refused in the handshake), as Agones' allocation.proto
/// documents it. It applies the request's `gameServerSelectors` in order to the
/// GameServers its members' SDK stand-ins keep (labels, state `READY`/`ALLOCATED`, the
/// Counters' `minCount`/`maxCount`/`minAvailable`/`maxAvailable`, the Lists'
/// `containsValue`/`minAvailable`/`maxAvailable`), chooses among the first selector's
/// matches in turn (so that two requests routed by nothing else land on different
/// servers), allocates it, applies the request's Counter and List actions, and answers
/// with its address and ports; `429` with gRPC's ResourceExhausted when nothing matched.
///
/// Invariant: allocations are applied one at a time, each to the GameServers as the ones
/// before left them.
final class AgonesAllocatorStandIn: Sendable {
  struct Member: Sendable {
    var sdk: AgonesSDKStandIn
    /// The game's port on 127.0.0.1.
    var port: Int
  }

  let port: Int
  private let members: [Member]
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: any Channel
  /// The requests' bodies in order, and how many allocations chose among several.
  private let state = NIOLockedValueBox((requests: [String](), turn: 0))

  /// How the stand-in misbehaves, for the client's faults: never answering, or answering
  /// with a body of this many bytes.
  enum Misbehaviour: Sendable {
    case silent
    case huge(Int)
  }
  let misbehaviour = NIOLockedValueBox<Misbehaviour?>(nil)

  init(members: [Member], certificate: String, key: String, clientCA: String) throws {
    self.members = members
    let tls = try TLSContext(
      .server(certificateChainFile: certificate, privateKeyFile: key, clientCAFile: clientCA))
    let answer = Box()
    channel = try ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(try TLSHandler(context: tls))
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          try channel.pipeline.syncOperations.addHandler(Handler(answer: answer))
        }
      }
      .bind(host: "127.0.0.1", port: 0).wait()
    port = channel.localAddress!.port!
    answer.allocate = { [weak self] body in self?.allocate(body) ?? (.serviceUnavailable, "") }
    answer.misbehaviour = { [weak self] in self?.misbehaviour.withLockedValue { $0 } }
  }

  var requests: [String] { state.withLockedValue { $0.requests } }

  func close() {
    try? channel.close().wait()
    try? group.syncShutdownGracefully()
  }

  /// One allocation: the status and the JSON answer.
  func allocate(_ body: String) -> (HTTPResponseStatus, String) {
    guard let request = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
    else { return (.badRequest, #"{"code":3,"message":"the request is not JSON"}"#) }
    return state.withLockedValue { state in
      state.requests.append(body)
      let selectors = request["gameServerSelectors"] as? [[String: Any]] ?? [[:]]
      for selector in selectors {
        let matching = members.filter { Self.matches(selector, $0.sdk.record) }
        guard !matching.isEmpty else { continue }
        let chosen = matching[state.turn % matching.count]
        state.turn += 1
        chosen.sdk.change { record in Self.apply(request, to: &record) }
        let answer: [String: Any] = [
          "gameServerName": chosen.sdk.record.name, "address": "127.0.0.1",
          "ports": [["name": "game", "port": chosen.port]], "nodeName": "node-1",
          "source": "local",
        ]
        let data = try! JSONSerialization.data(withJSONObject: answer)
        return (.ok, String(decoding: data, as: UTF8.self))
      }
      return (
        .tooManyRequests,
        #"{"code":8,"message":"there is no available GameServer to allocate","details":[]}"#
      )
    }
  }

  /// An int64 as proto3's JSON writes it (a string) or as a number.
  private static func int(_ value: Any?) -> Int? {
    (value as? Int) ?? (value as? String).flatMap(Int.init)
  }

  static func matches(_ selector: [String: Any], _ record: AgonesSDKStandIn.Record) -> Bool {
    let labels = selector["matchLabels"] as? [String: String] ?? [:]
    guard labels.allSatisfy({ record.labels[$0.key] == $0.value }) else { return false }
    let wanted = (selector["gameServerState"] as? String) == "ALLOCATED" ? "Allocated" : "Ready"
    guard record.state == wanted else { return false }
    for (key, value) in selector["counters"] as? [String: [String: Any]] ?? [:] {
      guard let counter = record.counters[key] else { return false }
      let available = counter.capacity - counter.count
      if let min = int(value["minCount"]), counter.count < min { return false }
      if let max = int(value["maxCount"]), max > 0, counter.count > max { return false }
      if let min = int(value["minAvailable"]), available < min { return false }
      if let max = int(value["maxAvailable"]), max > 0, available > max { return false }
    }
    for (key, value) in selector["lists"] as? [String: [String: Any]] ?? [:] {
      guard let list = record.lists[key] else { return false }
      let available = list.capacity - list.values.count
      if let wanted = value["containsValue"] as? String, !wanted.isEmpty,
        !list.values.contains(wanted)
      {
        return false
      }
      if let min = int(value["minAvailable"]), available < min { return false }
      if let max = int(value["maxAvailable"]), max > 0, available > max { return false }
    }
    return true
  }

  static func apply(_ request: [String: Any], to record: inout AgonesSDKStandIn.Record) {
    record.state = "Allocated"
    for (key, action) in request["counters"] as? [String: [String: Any]] ?? [:] {
      guard let counter = record.counters[key], let amount = int(action["amount"]) else { continue }
      let change = (action["action"] as? String) == "Decrement" ? -amount : amount
      record.counters[key] = (
        min(max(counter.count + change, 0), counter.capacity), counter.capacity
      )
    }
    for (key, action) in request["lists"] as? [String: [String: Any]] ?? [:] {
      guard var list = record.lists[key] else { continue }
      for value in action["addValues"] as? [String] ?? []
      where !list.values.contains(value) && list.values.count < list.capacity {
        list.values.append(value)
      }
      list.values.removeAll { (action["deleteValues"] as? [String] ?? []).contains($0) }
      record.lists[key] = list
    }
  }

  /// The allocation function, set once the stand-in exists.
  private final class Box: @unchecked Sendable {
    // `@unchecked Sendable`: set once in `init`, before the first connection is accepted.
    var allocate: @Sendable (String) -> (HTTPResponseStatus, String) = { _ in
      (.serviceUnavailable, "")
    }
    var misbehaviour: @Sendable () -> Misbehaviour? = { nil }
  }

  private final class Handler: ChannelInboundHandler, @unchecked Sendable {
    // `@unchecked Sendable`: used only on its channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let answer: Box
    private var head: HTTPRequestHead?
    private var body = ""

    init(answer: Box) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        self.head = head
        body = ""
      case .body(let buffer):
        body += String(buffer: buffer)
      case .end:
        guard let head else { return }
        switch answer.misbehaviour() {
        case .silent:
          return
        case .huge(let bytes):
          answerOnceWithJSON(context, status: .ok, String(repeating: " ", count: bytes))
          return
        case nil:
          break
        }
        let (status, text) =
          head.method == .POST && head.uri == "/gameserverallocation"
          ? answer.allocate(body) : (.notFound, #"{"code":5,"message":"Not Found"}"#)
        answerOnceWithJSON(context, status: status, text)
      }
    }
  }
}
