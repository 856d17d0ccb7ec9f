import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A stand-in for the Agones SDK server (the sidecar), which cannot be had on these
/// machines: the REST endpoints the game calls, as Agones documents them (`POST /ready`,
/// `POST /health`, `POST /shutdown`, `PUT /metadata/label`, the beta Counters'
/// `PATCH /v1beta1/counters/{name}` with `{"count": "N"}`, the beta Lists'
/// `POST /v1beta1/lists/{name}:addValue` and `:removeValue` with `{"value": "…"}`,
/// `GET /gameserver`, and `GET /watch/gameserver`, a stream of one JSON line per change),
/// keeping the GameServer they describe and recording each call in order (refusing as
/// the real one does: HTTP 500, gRPC's Unknown, with its message); anything else is `404`. ``AgonesAllocatorStandIn`` allocates it as Agones' allocator would.
///
/// Invariant: `calls` holds every request received, in the order they arrived, and every
/// watcher is sent the GameServer after each change to it.
final class AgonesSDKStandIn: Sendable {
  struct Call: Equatable, Sendable {
    var method: String
    var path: String
    var body: String
    /// "PATCH /v1beta1/counters/players".
    var line: String { "\(method) \(path)" }
  }

  /// The GameServer as Agones keeps it: what the SDK and the allocator change.
  struct Record: Sendable {
    var name: String
    var state = "Scheduled"
    var labels: [String: String]
    var counters: [String: (count: Int, capacity: Int)] = [
      "players": (0, 10_000), "rooms": (0, 5_000), "waiting": (0, 1_000),
    ]
    var lists: [String: (values: [String], capacity: Int)] = ["rooms": ([], 1_000)]
    /// Leaves the Lists out of what the watch streams (so that the game cannot know what
    /// they hold, and must rely on the SDK server's refusals).
    var listsHiddenFromWatch = false

    var json: [String: Any] {
      [
        "object_meta": ["name": name, "namespace": "default", "labels": labels],
        "status": [
          "state": state, "address": "127.0.0.1",
          "counters": counters.mapValues {
            ["count": "\($0.count)", "capacity": "\($0.capacity)"]
          },
          "lists": listsHiddenFromWatch
            ? [:] : lists.mapValues { ["values": $0.values, "capacity": "\($0.capacity)"] },
        ],
      ]
    }
  }

  let port: Int
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: any Channel
  private let recorded: NIOLockedValueBox<[Call]>
  private let shared: Shared

  /// The GameServer and the connections watching it, behind one lock.
  final class Shared: Sendable {
    let state: NIOLockedValueBox<(record: Record, watchers: [any Channel])>
    init(_ record: Record) { state = NIOLockedValueBox((record, [])) }

    /// Changes the GameServer and sends it to every watcher; `change` returns an HTTP
    /// status for the call that made it.
    @discardableResult
    func change(_ change: (inout Record) -> HTTPResponseStatus) -> HTTPResponseStatus {
      let (status, line, watchers) = state.withLockedValue { state in
        let status = change(&state.record)
        return (status, Self.line(state.record), state.watchers)
      }
      for watcher in watchers {
        watcher.writeAndFlush(
          HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: line))), promise: nil)
      }
      return status
    }

    static func line(_ record: Record) -> String {
      let data = try! JSONSerialization.data(withJSONObject: ["result": record.json])
      return String(decoding: data, as: UTF8.self) + "\n"
    }
  }

  /// Listens on 127.0.0.1:`port` (0: a free one), for the GameServer `name` of `fleet`.
  /// A call `holds` says is recorded and never answered (a sidecar that hangs).
  init(
    port: Int = 0, name: String = "roshambo-a", fleet: String = "roshambo",
    holds: @escaping @Sendable (Call) -> Bool = { _ in false }
  ) throws {
    let recorded = NIOLockedValueBox<[Call]>([])
    let shared = Shared(Record(name: name, labels: ["agones.dev/fleet": fleet]))
    self.recorded = recorded
    self.shared = shared
    channel = try ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap {
          channel.pipeline.addHandler(Handler(recorded: recorded, shared: shared, holds: holds))
        }
      }
      .bind(host: "127.0.0.1", port: port).wait()
    self.port = channel.localAddress?.port ?? port
  }

  var calls: [Call] { recorded.withLockedValue { $0 } }
  var record: Record { shared.state.withLockedValue { $0.record } }

  /// Changes the GameServer as Kubernetes or the allocator would (the watchers are told).
  func change(_ change: (inout Record) -> Void) {
    shared.change {
      change(&$0)
      return .ok
    }
  }

  func close() {
    let watchers = shared.state.withLockedValue { $0.watchers }
    for watcher in watchers { try? watcher.close().wait() }
    try? channel.close().wait()
    try? group.syncShutdownGracefully()
  }

  private final class Handler: ChannelInboundHandler, @unchecked Sendable {
    // `@unchecked Sendable`: used only on its channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let recorded: NIOLockedValueBox<[Call]>
    private let shared: Shared
    private let holds: @Sendable (Call) -> Bool
    private var head: HTTPRequestHead?
    private var body = ""

    init(
      recorded: NIOLockedValueBox<[Call]>, shared: Shared,
      holds: @escaping @Sendable (Call) -> Bool
    ) {
      self.recorded = recorded
      self.shared = shared
      self.holds = holds
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        self.head = head
        body = ""
      case .body(let buffer):
        body += String(buffer: buffer)
      case .end:
        guard let head else { return }
        let call = Call(method: head.method.rawValue, path: head.uri, body: body)
        recorded.withLockedValue { $0.append(call) }
        if holds(call) { return }
        if call.line == "GET /watch/gameserver" {
          watch(context)
          return
        }
        let (status, answer) = answer(call)
        answerOnceWithJSON(context, status: status, answer)
      }
    }

    /// The stream: the GameServer now, then after each change (chunked, never ended).
    private func watch(_ context: ChannelHandlerContext) {
      var headers = HTTPHeaders()
      headers.add(name: "Content-Type", value: "application/json")
      headers.add(name: "Transfer-Encoding", value: "chunked")
      context.write(
        wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
        promise: nil)
      let channel = context.channel
      let line = shared.state.withLockedValue { state in
        state.watchers.append(channel)
        return Shared.line(state.record)
      }
      context.writeAndFlush(
        wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: line)))), promise: nil)
      let shared = self.shared
      channel.closeFuture.whenComplete { _ in
        shared.state.withLockedValue { $0.watchers.removeAll { $0 === channel } }
      }
    }

    /// What the SDK server does with one call: its status and body.
    private func answer(_ call: Call) -> (HTTPResponseStatus, String) {
      let object =
        (try? JSONSerialization.jsonObject(with: Data(call.body.utf8))) as? [String: Any] ?? [:]
      switch (call.method, call.path) {
      case ("POST", "/ready"):
        shared.change {
          if $0.state == "Scheduled" { $0.state = "Ready" }
          return .ok
        }
        return (.ok, "{}")
      case ("POST", "/health"), ("PUT", "/metadata/label"):
        return (.ok, "{}")
      case ("POST", "/shutdown"):
        shared.change {
          $0.state = "Shutdown"
          return .ok
        }
        return (.ok, "{}")
      case ("GET", "/gameserver"):
        return (.ok, shared.state.withLockedValue { Shared.line($0.record) })
      case ("PATCH", let path) where path.hasPrefix("/v1beta1/counters/"):
        let key = String(path.dropFirst("/v1beta1/counters/".count))
        guard let text = object["count"] as? String, let count = Int(text) else {
          return (.badRequest, #"{"code":3,"message":"count must be an int64 string"}"#)
        }
        let status = shared.change { record in
          guard let counter = record.counters[key] else { return .notFound }
          guard count <= counter.capacity else { return .badRequest }
          record.counters[key] = (count, counter.capacity)
          return .ok
        }
        return (status, status == .ok ? "{}" : #"{"code":5,"message":"no such counter"}"#)
      case ("POST", let path) where path.hasPrefix("/v1beta1/lists/"):
        let rest = path.dropFirst("/v1beta1/lists/".count)
        guard let colon = rest.lastIndex(of: ":"), let value = object["value"] as? String else {
          return (.badRequest, #"{"code":3,"message":"bad request"}"#)
        }
        let key = String(rest[..<colon])
        let verb = rest[rest.index(after: colon)...]
        let status = shared.change { record in
          guard var list = record.lists[key] else { return .notFound }
          switch verb {
          case "addValue":
            if list.values.contains(value) { return .conflict }
            if list.values.count >= list.capacity { return .badRequest }
            list.values.append(value)
          case "removeValue":
            guard let index = list.values.firstIndex(of: value) else { return .notFound }
            list.values.remove(at: index)
          default:
            return .notFound
          }
          record.lists[key] = list
          return .ok
        }
        // As the real SDK server: its errors are gRPC's Unknown (HTTP 500), told apart by
        // their message.
        switch status {
        case .ok: return (.ok, "{}")
        case .conflict:
          return (
            .internalServerError,
            #"{"code":2,"message":"already exists. Value: \#(value) already in List: \#(key)"}"#
          )
        case .notFound:
          return (
            .internalServerError,
            #"{"code":2,"message":"not found: value \#(value) not in list \#(key)"}"#
          )
        default:
          return (
            .internalServerError, #"{"code":2,"message":"out of range. No available capacity."}"#
          )
        }
      default:
        return (.notFound, #"{"error":"Not Found"}"#)
      }
    }
  }
}
