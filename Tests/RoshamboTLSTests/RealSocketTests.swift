import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ProcessFixtures
import RoshamboTLS
import Testing

/// Errors seen on server-side connections, collected across event loop threads.
final class ErrorLog: Sendable {
  private let errors = NIOLockedValueBox<[TLSError]>([])
  func append(_ error: TLSError) { errors.withLockedValue { $0.append(error) } }
  var all: [TLSError] { errors.withLockedValue { $0 } }
}

/// Echoes the first line it receives as `echo:<line>` and closes with close_notify.
final class EchoOnceHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  let log: ErrorLog
  private var line = ""

  init(log: ErrorLog) { self.log = log }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    line += String(buffer: unwrapInboundIn(data))
    guard line.contains("\n") else { return }
    let reply = "echo:" + line.prefix { $0 != "\n" } + "\n"
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply))).assumeIsolated().whenComplete
    {
      _ in context.close(promise: nil)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if let error = error as? TLSError { log.append(error) }
  }
}

/// Completes with the first line received (or all text, if the connection closes
/// first), or fails with the first error; then closes the connection.
final class ReplyCollector: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  private let reply: EventLoopPromise<String>
  private var text = ""
  private var done = false

  init(reply: EventLoopPromise<String>) { self.reply = reply }

  private func finish(_ result: Result<String, any Error>) {
    guard !done else { return }
    done = true
    reply.completeWith(result)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    text += String(buffer: unwrapInboundIn(data))
    if text.contains("\n") {
      finish(.success(text))
      context.close(promise: nil)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    finish(.failure(error))
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    finish(.success(text))
  }
}

/// A TLS echo server of ours on 127.0.0.1 and an ephemeral port.
struct EchoServer {
  let channel: any Channel
  let log: ErrorLog
  var port: Int { channel.localAddress!.port! }

  static func start(context: TLSContext) async throws -> EchoServer {
    let log = ErrorLog()
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(TLSHandler(context: context))
          try channel.pipeline.syncOperations.addHandler(EchoOnceHandler(log: log))
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    return EchoServer(channel: channel, log: log)
  }

  func stop() async throws { try await channel.close() }
}

/// Connects our TLS client, sends `line`, and returns everything the server sent back
/// before it closed.
func exchange(
  port: Int, context: TLSContext, serverName: String = "localhost", line: String
) async throws -> String {
  let group = MultiThreadedEventLoopGroup.singleton
  let reply = group.any().makePromise(of: String.self)
  let channel = try await ClientBootstrap(group: group)
    .channelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        try channel.pipeline.syncOperations.addHandler(
          TLSHandler(context: context, serverName: serverName))
        try channel.pipeline.syncOperations.addHandler(ReplyCollector(reply: reply))
      }
    }
    .connect(host: "127.0.0.1", port: port).get()
  // The reply says how the exchange went (a TLS failure included); the write's own
  // result would only say "closed channel" when the handshake fails first.
  channel.writeAndFlush(ByteBuffer(string: line + "\n"), promise: nil)
  return try await reply.futureResult.get()
}

/// Runs the `openssl` command with `stdin`, waits for it, and returns what it printed.
func runOpenSSL(_ arguments: [String], stdin: String) throws -> (
  status: Int32, stdout: String, stderr: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["openssl"] + arguments
  let input = Pipe()
  let output = Pipe()
  let errors = Pipe()
  process.standardInput = input
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  input.fileHandleForWriting.write(Data(stdin.utf8))
  try input.fileHandleForWriting.close()
  // A bound on a stuck peer, not a timing assumption: the exchange itself is awaited.
  let watchdog = DispatchWorkItem { process.terminate() }
  DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
  let out = output.fileHandleForReading.readDataToEndOfFile()
  let err = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  watchdog.cancel()
  return (
    process.terminationStatus, String(decoding: out, as: UTF8.self),
    String(decoding: err, as: UTF8.self)
  )
}

/// `openssl s_server` on 127.0.0.1, with the port it chose read from its `ACCEPT` line.
struct OpenSSLServer {
  let process: Process
  let port: Int

  static func start(_ arguments: [String]) throws -> OpenSSLServer {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "s_server", "-accept", "127.0.0.1:0"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = Pipe()
    try process.run()
    var seen = ""
    while !seen.contains("\n") || !seen.contains("ACCEPT") {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { throw TLSError(.configuration, "openssl s_server exited: \(seen)") }
      seen += String(decoding: chunk, as: UTF8.self)
    }
    let line = seen.split(separator: "\n").first { $0.hasPrefix("ACCEPT") }!
    let port = Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))!
    return OpenSSLServer(process: process, port: port)
  }

  func stop() {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }
}

@Suite("TLS over real sockets on 127.0.0.1", .serialized)
struct RealSocketTests {
  let game = Fixtures.game

  @Test("our client against openssl s_server")
  func ourClientAgainstOpenSSLServer() async throws {
    let server = try OpenSSLServer.start([
      "-cert", game.serverCertificate, "-key", game.serverKey, "-rev", "-naccept", "1",
    ])
    defer { server.stop() }
    let reply = try await exchange(
      port: server.port, context: Fixtures.clientContext(), line: "roshambo")
    // s_server -rev answers each line reversed.
    #expect(reply.contains("obmahsor"))
  }

  @Test("our client refuses openssl s_server with a certificate from another CA")
  func ourClientRefusesStranger() async throws {
    let server = try OpenSSLServer.start([
      "-cert", Fixtures.stranger.serverCertificate, "-key", Fixtures.stranger.serverKey,
      "-rev", "-naccept", "1",
    ])
    defer { server.stop() }
    await #expect {
      _ = try await exchange(port: server.port, context: Fixtures.clientContext(), line: "x")
    } throws: { error in
      (error as? TLSError)?.kind == .untrustedIssuer
    }
  }

  @Test("openssl s_client against our server verifies it and speaks TLS 1.3")
  func openSSLClientAgainstOurServer() async throws {
    let server = try await EchoServer.start(context: Fixtures.serverContext())
    let port = server.port
    let result = try await blocking {
      try runOpenSSL(
        [
          "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost",
          "-verify_hostname", "localhost", "-CAfile", Fixtures.game.caCertificate,
          "-verify_return_error", "-brief", "-ign_eof",
        ], stdin: "ping\n")
    }
    try await server.stop()
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("echo:ping"))
    #expect(result.stderr.contains("Protocol version: TLSv1.3"))
    #expect(result.stderr.contains("Verification: OK"))
    #expect(server.log.all.isEmpty, "\(server.log.all)")
  }

  @Test("openssl s_client with TLS 1.2 only is refused by our server")
  func openSSLClientTLS12Refused() async throws {
    let server = try await EchoServer.start(context: Fixtures.serverContext())
    let port = server.port
    let result = try await blocking {
      try runOpenSSL(
        ["s_client", "-connect", "127.0.0.1:\(port)", "-tls1_2", "-brief"], stdin: "ping\n")
    }
    try await server.stop()
    #expect(result.status != 0)
    #expect(!result.stdout.contains("echo:ping"))
    #expect(server.log.all.map(\.kind).contains(.protocolVersion))
  }

  @Test("our client against our server over 127.0.0.1")
  func ourClientAgainstOurServer() async throws {
    let server = try await EchoServer.start(context: Fixtures.serverContext())
    let reply = try await exchange(
      port: server.port, context: Fixtures.clientContext(), serverName: "127.0.0.1",
      line: "rock")
    try await server.stop()
    #expect(reply == "echo:rock\n")
    #expect(server.log.all.isEmpty, "\(server.log.all)")
  }
}
