import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ProcessFixtures
import RoshamboProtocol
import RoshamboTLS
import Testing

@testable import RoshamboClient

/// A TLS server that answers `hello` with whatever frames a test scripts, then closes.
final class HostileServer: Sendable {
  let channel: any Channel
  var port: Int { channel.localAddress!.port! }

  /// `thenSilent`: keep the connection open after the script and answer nothing more.
  init(frames: [[UInt8]], thenSilent: Bool = false) async throws {
    channel = try await Self.listen { Script(frames: frames, thenSilent: thenSilent) }
  }

  /// A TLS server on 127.0.0.1 and a free port with the test certificate, each connection
  /// reading frames into the handler `last` makes.
  static func listen(
    on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    _ last: @escaping @Sendable () -> any ChannelHandler
  ) async throws -> any Channel {
    let tls = try TLSContext(
      .server(
        certificateChainFile: ClientTestCertificates.files.serverCertificate,
        privateKeyFile: ClientTestCertificates.files.serverKey))
    return try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { child in
        child.eventLoop.makeCompletedFuture {
          try child.pipeline.syncOperations.addHandlers([
            try TLSHandler(context: tls), ByteToMessageHandler(FrameDecoder()), last(),
          ])
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
  }

  func close() async { try? await channel.close() }

  /// Sends the scripted bytes once the first frame (the hello) arrives, then closes.
  final class Script: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let frames: [[UInt8]]
    let thenSilent: Bool
    var sent = false
    init(frames: [[UInt8]], thenSilent: Bool) {
      self.frames = frames
      self.thenSilent = thenSilent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard !sent else { return }
      sent = true
      for frame in frames { context.write(NIOAny(ByteBuffer(bytes: frame)), promise: nil) }
      context.writeAndFlush(NIOAny(ByteBuffer())).assumeIsolated().whenComplete { _ in
        if !self.thenSilent { context.close(promise: nil) }
      }
    }
  }
}

/// A server that welcomes a spectator to "den", then sends `count` valid states of about
/// 50 KB each (a long reason in the history) as fast as the connection takes them, and
/// keeps the connection open.
final class FloodingServer: Sendable {
  let channel: any Channel
  let sent = NIOLockedValueBox(0)
  /// A thread of its own: the flood must not hold up the loops other tests share.
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  var port: Int { channel.localAddress!.port! }

  init(count: Int) async throws {
    let sent = self.sent
    channel = try await HostileServer.listen(on: group) { Flood(count: count, sent: sent) }
  }

  func close() async {
    try? await channel.close()
    try? await group.shutdownGracefully()
  }

  final class Flood: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let count: Int
    let sent: NIOLockedValueBox<Int>
    var next = 0
    let reason = String(repeating: "r", count: 50_000)

    init(count: Int, sent: NIOLockedValueBox<Int>) {
      self.count = count
      self.sent = sent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard next == 0 else { return }
      next = 1
      context.write(
        NIOAny(
          ByteBuffer(
            bytes: frame(#"{"type":"welcome","protocol":1,"room":"den","seat":null,"token":null}"#))
        ),
        promise: nil)
      pump(context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
      if context.channel.isWritable { pump(context) }
      context.fireChannelWritabilityChanged()
    }

    private func pump(_ context: ChannelHandlerContext) {
      while next <= count, context.channel.isWritable {
        // A new reason each time: a client that prints every change has to print each.
        let history =
          #"[{"round":1,"weapons":["rock","paper"],"winner":2,"reason":"\#(next) \#(reason)"}]"#
        let view = view(
          players: "[\(player(1, "A")),\(player(2, "B"))]", history: history, you: "null")
        // Flushed one by one: the TLS handler holds what is not flushed, and only what
        // reaches the socket's buffer makes the channel unwritable.
        context.writeAndFlush(
          NIOAny(ByteBuffer(bytes: frame(#"{"type":"state","seq":\#(next),"view":\#(view)}"#))),
          promise: nil)
        next += 1
      }
      sent.withLockedValue { $0 = next - 1 }
    }
  }
}

/// `payload` as one whole frame.
func frame(_ payload: String) -> [UInt8] {
  Array(buffer: ByteBuffer.frame(Array(payload.utf8)))
}

/// A `view` with the given players and history, otherwise well formed.
func view(players: String, history: String = "[]", room: String = "den", you: String = "1")
  -> String
{
  """
  {"room":"\(room)","ruleset":"classic","bestOf":3,"phase":"choosing","round":2,"you":\(you),\
  "players":\(players),"history":\(history),"winner":null,"deadline":null,"spectators":0,\
  "rematch":[]}
  """
}

func player(_ seat: Int, _ name: String) -> String {
  #"{"seat":\#(seat),"name":"\#(name)","connected":true,"chosen":false,"weapon":null,"score":0}"#
}

let welcome = frame(#"{"type":"welcome","protocol":1,"room":"den","seat":1,"token":"t"}"#)

@Suite("The client against a hostile server", .serialized)
struct HostileServerTests {
  /// Runs `roshambo bot` against the script; returns its exit status and every byte it wrote.
  func runBot(_ frames: [[UInt8]]) async throws -> (Int32, [UInt8]) {
    let server = try await HostileServer(frames: frames)
    defer { Task { await server.close() } }
    let (bot, pipe) = try startRoshambo(["bot", "--name", "Tester"], port: server.port)
    return await blocking {
      let bytes = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
      bot.waitUntilExit()
      return (bot.terminationStatus, bytes)
    }
  }

  static let hostile = [
    "\\u001b]52;c;aGk=\\u0007", "\\u001b]0;owned\\u0007", "\\u001b[2J", "\\u001b[6n", "\\u0007",
    "\\u001b[31mred", "\\u202egnp.exe", "\\u009b2J",
  ]

  @Test("escape sequences in every text field never reach the output raw")
  func escapes() async throws {
    for (index, text) in Self.hostile.enumerated() {
      let frames = [
        frame(#"{"type":"welcome","protocol":1,"room":"den","seat":1,"token":"t"}"#),
        frame(
          #"{"type":"state","seq":1,"view":\#(view(players: "[\(player(1, "Me")),\(player(2, "Evil"))]", history: #"[{"round":1,"weapons":["rock","paper"],"winner":2,"reason":"paper \#(text) rock"}]"#))}"#
        ),
        frame(#"{"type":"error","code":"x\#(text)","message":"bad \#(text) news","fatal":true}"#),
      ]
      let (status, bytes) = try await runBot(frames)
      #expect(status != 0)
      #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "case \(index): \(bytes)")
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(
        !text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0 == "\u{202E}" })
      #expect(text.contains("Evil"), "the round is still reported: \(text)")
    }
  }

  @Test("a server that goes silent after TLS is given up on once pings go unanswered")
  func silentServer() async throws {
    let server = try await HostileServer(
      frames: [
        welcome,
        frame(#"{"type":"state","seq":1,"view":\#(view(players: "[\(player(1, "Me"))]"))}"#),
      ], thenSilent: true)
    defer { Task { await server.close() } }
    let started = ContinuousClock.now
    let (status, printed) = try await runRoshambo(
      ["bot", "--name", "Tester", "--keepalive", "0.2"], port: server.port, seconds: 20)
    #expect(status == 1, "\(printed)")
    #expect(printed.contains("the server stopped answering"), "\(printed)")
    #expect(ContinuousClock.now - started < .seconds(10))
  }

  @Test(
    "roshambo who and replay N against a server that takes the hello and says nothing: each gives up after 10 s, exit 1",
    arguments: [["who"], ["replay", "7"]])
  func noAnswer(command: [String]) async throws {
    let server = try await HostileServer(frames: [], thenSilent: true)
    defer { Task { await server.close() } }
    // Pings every 30 s: the silence of the lobby's follower (three pings) comes after
    // the answer's deadline, which is what is tried here. Waited for on a thread of its
    // own (the other tests need the tasks' threads meanwhile); past 30 s it is killed.
    let (process, pipe) = try startRoshambo(
      command + ["--name", "Tester", "--keepalive", "30"], port: server.port)
    let (status, printed) = await awaitExit(process, pipe, seconds: 30)
    #expect(status == 1, "\(printed)")
    #expect(printed.contains("no answer within 10 s"), "\(printed)")
  }

  @Test("the lobby screen's replay says a record that never came as such, not as a lost link")
  func noAnswerSaid() {
    let said = ConnectionFailure.ended(NoAnswer(request: "match 7", limit: .seconds(10)))
    #expect(said.hasPrefix("no answer within 10 s for match 7"), "\(said)")
  }

  @Test("a flood of valid states keeps the client's memory flat: only the newest is kept")
  func flood() async throws {
    let count = 4_000  // about 200 MB of states
    let server = try await FloodingServer(count: count)
    defer { Task { await server.close() } }
    // Its output goes to a pipe nobody reads: once the pipe is full the client's printing
    // blocks, so it reads from the network far faster than it can show what it read.
    let (watcher, unread) = try startRoshambo(["watch", "--room", "den"], port: server.port)
    defer { if watcher.isRunning { watcher.terminate() } }
    // The peak resident size once the server has written every state (the client took
    // them all off the socket, or they would not have been written).
    let deadline = ContinuousClock.now + .seconds(60)
    while server.sent.withLockedValue({ $0 }) < count, watcher.isRunning,
      ContinuousClock.now < deadline
    {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(server.sent.withLockedValue { $0 } == count, "the flood was not all taken")
    let status = try String(
      contentsOfFile: "/proc/\(watcher.processIdentifier)/status", encoding: .utf8)
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    let kilobytes = peak.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? .max
    #expect(watcher.isRunning, "the client survived the flood")

    #expect(kilobytes < 120_000, "peak resident size \(kilobytes) KiB after a 200 MB flood")
    withExtendedLifetime(unread) {}
  }

  @Test("a room or a name that breaks the protocol's rules is refused (76), quoted harmlessly")
  func hostileRoomAndNames() async throws {
    for (index, text) in Self.hostile.enumerated() {
      for field in ["welcome room", "view room", "name"] {
        let room = field == "view room" ? "den\(text)" : "den"
        let frames = [
          frame(
            #"{"type":"welcome","protocol":1,"room":"\#(field == "welcome room" ? room + text : "den")","seat":1,"token":"t"}"#
          ),
          frame(
            #"{"type":"state","seq":1,"view":\#(view(players: "[\(player(1, "Me")),\(player(2, field == "name" ? "Evil\(text)" : "Evil"))]", room: room))}"#
          ),
        ]
        let (status, bytes) = try await runBot(frames)
        let printed = String(decoding: bytes, as: UTF8.self)
        #expect(status == 76, "case \(index), \(field): \(printed)")
        #expect(printed.contains("breaks the"), "case \(index), \(field): \(printed)")
        #expect(!bytes.contains(0x1B) && !bytes.contains(0x07), "case \(index): \(bytes)")
        #expect(
          !printed.unicodeScalars.contains {
            (0x80...0x9F).contains($0.value) || $0 == "\u{202E}"
          })
      }
    }
    // 50,000 characters of room name: refused, and quoted in at most 40 columns.
    let long = String(repeating: "d", count: 50_000)
    let (status, bytes) = try await runBot([
      welcome,
      frame(
        #"{"type":"state","seq":1,"view":\#(view(players: "[\(player(1, "Me"))]", room: long))}"#),
    ])
    #expect(status == 76)
    #expect(bytes.count < 1_000, "\(bytes.count) bytes printed")
  }

  @Test(
    "play and watch on a terminal: no hostile text drawn raw, and the terminal put back",
    arguments: ["play", "watch"])
  func onTerminal(command: String) async throws {
    let text = Self.hostile.joined()
    let seat = command == "play" ? "1" : "null"
    let history = #"[{"round":1,"weapons":["rock","paper"],"winner":2,"reason":"why \#(text)"}]"#
    let players = "[\(player(1, "Me")),\(player(2, "Evil"))]"
    let server = try await HostileServer(frames: [
      frame(#"{"type":"welcome","protocol":1,"room":"den","seat":\#(seat),"token":"t"}"#),
      frame(
        #"{"type":"state","seq":1,"view":\#(view(players: players, history: history, you: seat))}"#
      ),
      frame(#"{"type":"error","code":"x\#(text)","message":"bad \#(text) news","fatal":true}"#),
    ])
    defer { Task { await server.close() } }
    let terminal = try PseudoTerminal()
    let wasCooked = terminal.isCooked
    let (status, bytes) = try await terminal.run(
      repositoryRoot + "/.build/debug/roshambo",
      [
        command, "--host", "127.0.0.1", "--port", String(server.port), "--ca",
        ClientTestCertificates.files.caCertificate,
      ] + (command == "play" ? ["--name", "Tester", "--room", "den"] : ["--room", "den"]))
    let output = String(decoding: bytes, as: UTF8.self)
    #expect(status == 1, "\(output)")
    #expect(output.contains("\u{1B}[?1049h"), "it drew on the alternate screen")
    #expect(output.contains("Evil"), "the opponent is drawn: \(output)")
    #expect(output.contains("bad"), "the server's error is said: \(output)")
    for injected in ["\u{1B}]", "\u{1B}[6n", "\u{1B}[2J", "\u{1B}[31mred", "\u{202E}", "\u{9B}"] {
      #expect(!output.contains(injected), "\(injected.unicodeScalars.map(\.value)) in \(output)")
    }
    #expect(!bytes.contains(0x07))
    let leave = output.range(of: "\u{1B}[?25h\u{1B}[?1049l", options: .backwards)
    let enter = output.range(of: "\u{1B}[?1049h", options: .backwards)
    #expect(leave != nil && enter != nil && leave!.lowerBound > enter!.lowerBound)
    #expect(wasCooked && terminal.isCooked, "the terminal is back in line mode with echo")
  }

  @Test(
    "a state that breaks the contract is a clear error and exit 76, never a crash",
    arguments: [
      ("[\(player(1, "A")),\(player(1, "B"))]", "[]", "same seat"),
      (
        "[\(player(1, "A")),\(player(2, "B"))]", #"[{"round":1,"weapons":[],"winner":1}]"#,
        "0 weapons"
      ),
      (
        "[\(player(1, "A")),\(player(2, "B"))]",
        #"[{"round":1,"weapons":["rock","lizard"],"winner":1}]"#, "lizard"
      ),
    ])
  func badStates(players: String, history: String, named: String) async throws {
    let (status, bytes) = try await runBot([
      welcome,
      frame(#"{"type":"state","seq":1,"view":\#(view(players: players, history: history))}"#),
    ])
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(status == 76, "\(text)")
    #expect(text.contains(named), "\(text)")
  }

  @Test("seq going backwards, an unknown weapon, and a frame cut short")
  func otherFaults() async throws {
    let good = view(players: "[\(player(1, "A")),\(player(2, "B"))]")
    let (backwards, said) = try await runBot([
      welcome, frame(#"{"type":"state","seq":5,"view":\#(good)}"#),
      frame(#"{"type":"state","seq":4,"view":\#(good)}"#),
    ])
    #expect(backwards == 76 && String(decoding: said, as: UTF8.self).contains("seq"))
    let weapon =
      #"{"seat":1,"name":"A","connected":true,"chosen":true,"weapon":"bazooka","score":0}"#
    let (unknown, _) = try await runBot([
      welcome, frame(#"{"type":"state","seq":1,"view":\#(view(players: "[\(weapon)]"))}"#),
    ])
    #expect(unknown == 76)
    let (cut, cutSaid) = try await runBot([welcome, Array(frame(#"{"type":"state"}"#).prefix(9))])
    #expect(cut == 1, "\(String(decoding: cutSaid, as: UTF8.self))")
  }
}
