import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import RoshamboOperations
@testable import RoshamboServer

/// Stands at the bottom of a connection's pipeline for a socket whose peer does not read:
/// every write stays unwritten (its promise pending) and its bytes are counted, as are
/// the reads the pipeline asks for.
final class UnreadSocket: ChannelOutboundHandler {
  typealias OutboundIn = IOData

  private(set) var heldBytes = 0
  private(set) var reads = 0
  private var held: [EventLoopPromise<Void>] = []

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    heldBytes += unwrapOutboundIn(data).readableBytes
    if let promise { held.append(promise) }
  }

  func flush(context: ChannelHandlerContext) {}

  func read(context: ChannelHandlerContext) { reads += 1 }

  /// Closing fails what was never written, as a socket's close does.
  func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
    let unwritten = held
    held = []
    for promise in unwritten { promise.fail(ChannelError.ioOnClosedChannel) }
    context.close(mode: mode, promise: promise)
  }

  /// The peer reads everything held.
  func drain() {
    let written = held
    held = []
    heldBytes = 0
    for promise in written { promise.succeed() }
  }
}

/// One connection of the operations endpoint, on an embedded channel: what it answers,
/// holds and closes, with no socket and no clock but the channel's.
@Suite("The operations endpoint: one connection")
struct OperationsConnectionTests {
  let metrics = PrometheusMetrics(version: "test", protocolVersion: 1, commit: "test")
  let lines = LogLines()

  /// A connected channel with the endpoint's pipeline over `socket`; its probes answer at
  /// once.
  func connection(
    _ socket: UnreadSocket, requestTimeout: TimeAmount = .seconds(10)
  ) throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    let loop = channel.embeddedEventLoop
    try channel.pipeline.syncOperations.addHandler(socket)
    let probes = OperationsEndpoint.Probes(
      sample: { loop.makeSucceededVoidFuture() },
      readiness: { loop.makeSucceededFuture(.ready) })
    try OperationsEndpoint.configure(
      channel, metrics: metrics, probes: probes, requestTimeout: requestTimeout,
      logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) })
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9464)).wait()
    return channel
  }

  @Test("pipelined scrapes from a client that reads none: one answer held, then closed")
  func pipelinedWithoutReading() throws {
    let socket = UnreadSocket()
    let channel = try connection(socket)
    let oneAnswer = metrics.exposition().count + 200
    let requests = String(repeating: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", count: 1_000)
    _ = try? channel.writeInbound(ByteBuffer(string: requests))
    channel.embeddedEventLoop.run()
    #expect(
      socket.heldBytes <= oneAnswer,
      "\(socket.heldBytes) bytes held for a client that reads nothing (one answer: \(oneAnswer))")
    #expect(!channel.isActive, "a connection with 1,000 requests waiting was kept open")
    #expect(lines.text.contains("without reading the answers"), "\(lines.text)")
  }

  @Test("while its answer is unwritten a connection is not read, and is closed at its deadline")
  func unwrittenAnswer() throws {
    let socket = UnreadSocket()
    let channel = try connection(socket, requestTimeout: .seconds(2))
    try channel.writeInbound(ByteBuffer(string: "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"))
    channel.embeddedEventLoop.run()
    #expect(socket.heldBytes > 0, "no answer was written")
    let reads = socket.reads
    channel.read()
    #expect(socket.reads == reads, "read on while its answer was unwritten")
    channel.embeddedEventLoop.advanceTime(by: .seconds(2))
    #expect(!channel.isActive, "an answer unwritten for 2 s kept its connection open")
  }

  @Test("a client that reads its answers is answered in turn and read again")
  func pipelinedAndRead() throws {
    let socket = UnreadSocket()
    let channel = try connection(socket)
    let requests = String(repeating: "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n", count: 3)
    try channel.writeInbound(ByteBuffer(string: requests))
    var answers = 0
    for _ in 0..<3 {
      channel.embeddedEventLoop.run()
      #expect(socket.heldBytes > 0)
      answers += 1
      socket.drain()
    }
    channel.embeddedEventLoop.run()
    #expect(answers == 3)
    #expect(socket.heldBytes == 0)
    let reads = socket.reads
    channel.read()
    #expect(socket.reads == reads + 1, "not read again once every answer was written")
    #expect(channel.isActive)
  }
}

/// Which connection gives way when the operations port is full.
@Suite("The operations endpoint: admission")
struct OperationsAdmissionTests {
  let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

  @Test("full of idle connections: a new one closes the one idle longest")
  func closesTheOldestIdle() {
    var admission = OperationsAdmission(capacity: 3)
    for id in 0..<3 {
      #expect(admission.admit(id, now: start + .seconds(Int64(id))) == .admit)
    }
    // Connection 0 was answered most recently: 1 has waited longest now.
    admission.answering(0)
    admission.answered(0, now: start + .seconds(5))
    #expect(admission.admit(3, now: start + .seconds(6)) == .admitClosing(1))
    #expect(admission.admit(4, now: start + .seconds(7)) == .admitClosing(2))
    #expect(Set(admission.idleSince.keys) == [0, 3, 4])
  }

  @Test("a connection being answered is never closed for another; all answered: refused")
  func keepsTheAnswered() {
    var admission = OperationsAdmission(capacity: 2)
    #expect(admission.admit(0, now: start) == .admit)
    #expect(admission.admit(1, now: start + .seconds(1)) == .admit)
    admission.answering(0)
    #expect(admission.admit(2, now: start + .seconds(2)) == .admitClosing(1))
    admission.answering(2)
    #expect(admission.admit(3, now: start + .seconds(3)) == .refuse)
    admission.remove(0)
    #expect(admission.admit(3, now: start + .seconds(4)) == .admit)
  }
}
