// TLS benchmarks, each figure printed beside its baseline measured in the same run:
//   1. full handshakes per second: our server next to `openssl s_server`, both driven by
//      `openssl s_time -new` on 127.0.0.1;
//   2. p50/p99 of a 100-byte ping/pong: over our TLSHandler next to plain TCP through
//      the same NIO pipeline;
//   3. server memory per idle connection with 10,000 open: TLS next to plain TCP.
//
// Usage: swift run -c release tls-bench [--quick]
// (internal modes used by the run itself: `serve`, `hold`)
import BenchmarkSupport
import Foundation
import NIOCore
import NIOPosix
import RoshamboTLS

// MARK: - Shared pieces

/// Echoes every byte back.
final class EchoHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.write(data, promise: nil)
  }
  func channelReadComplete(context: ChannelHandlerContext) {
    context.flush()
  }
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}

func startServer(
  group: any EventLoopGroup, tls: TLSContext?, port: Int = 0
) throws -> any Channel {
  try ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .serverChannelOption(.backlog, value: 4096)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        if let tls { try channel.pipeline.syncOperations.addHandler(TLSHandler(context: tls)) }
        try channel.pipeline.syncOperations.addHandler(EchoHandler())
      }
    }
    .bind(host: "127.0.0.1", port: port).wait()
}

// MARK: - Child modes

/// `serve (--tls CERT KEY [--allow-tls12] | --plain)`: a one-thread echo server; prints `PORT <n>`, then
/// answers `rss` on stdin with `RSS <bytes>` until stdin closes.
func serveMode(_ arguments: [String]) throws -> Never {
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  var tls: TLSContext?
  if let index = arguments.firstIndex(of: "--tls") {
    tls = try TLSContext(
      .server(
        certificateChainFile: arguments[index + 1], privateKeyFile: arguments[index + 2],
        allowTLS12: arguments.contains("--allow-tls12")))
  }
  let channel = try startServer(group: group, tls: tls)
  print("PORT \(channel.localAddress!.port!)")
  fflush(nil)
  answerMemoryQueries()
  exit(0)
}

/// Counts finished handshakes (or connections, for plain TCP) across event loops.
final class Counter: @unchecked Sendable {
  // `@unchecked Sendable`: `count` is only touched under `lock`.
  private let lock = NSLock()
  private var count = 0
  private var failures = 0
  func add(failed: Bool = false) {
    lock.lock()
    if failed { failures += 1 } else { count += 1 }
    lock.unlock()
  }
  var values: (ok: Int, failed: Int) {
    lock.lock()
    defer { lock.unlock() }
    return (count, failures)
  }
}

final class HandshakeWatcher: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let counter: Counter
  init(counter: Counter) { self.counter = counter }
  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is TLSHandshakeCompleted { counter.add() }
  }
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    counter.add(failed: true)
  }
}

/// `hold --port P --count N (--ca FILE | --plain)`: opens N connections (handshaking
/// each), prints `HELD <n> FAILED <m>`, and keeps them open until stdin closes.
func holdMode(_ arguments: [String]) throws -> Never {
  let port = Int(arguments[arguments.firstIndex(of: "--port")! + 1])!
  let count = Int(arguments[arguments.firstIndex(of: "--count")! + 1])!
  let tls = try arguments.firstIndex(of: "--ca").map {
    try TLSContext(.client(trust: .caFile(arguments[$0 + 1])))
  }
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  let counter = Counter()
  var channels: [any Channel] = []
  channels.reserveCapacity(count)
  for start in stride(from: 0, to: count, by: 500) {
    let batch = (start..<min(count, start + 500)).map { _ in
      ClientBootstrap(group: group)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            if let tls {
              try channel.pipeline.syncOperations.addHandler(
                TLSHandler(context: tls, serverName: "127.0.0.1"))
            }
            try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(counter: counter))
          }
        }
        .connect(host: "127.0.0.1", port: port)
    }
    for future in batch {
      let channel = try future.wait()
      channels.append(channel)
      if tls == nil { counter.add() }
    }
    // Wait for this batch's handshakes before opening more, without sleeping blind.
    while tls != nil && counter.values.ok + counter.values.failed < channels.count {
      try group.next().scheduleTask(in: .milliseconds(5)) {}.futureResult.wait()
    }
  }
  let values = counter.values
  print("HELD \(values.ok) FAILED \(values.failed)")
  fflush(nil)
  while readLine() != nil {}
  exit(0)
}

// MARK: - 1. Handshakes per second

/// Runs `openssl s_time -new` against `port` for `seconds` and returns handshakes per
/// wall-clock second.
func handshakesPerSecond(port: Int, seconds: Int) throws -> Double {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [
    "openssl", "s_time", "-connect", "127.0.0.1:\(port)", "-new", "-time", "\(seconds)",
  ]
  let output = Pipe()
  process.standardOutput = output
  process.standardError = Pipe()
  let start = Date()
  try process.run()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  let elapsed = Date().timeIntervalSince(start)
  guard let line = text.split(separator: "\n").first(where: { $0.contains("real seconds") }),
    let count = Double(line.split(separator: " ").first ?? "")
  else { fatalError("s_time printed no result: \(text)") }
  return count / elapsed
}

func startOpenSSLServer(files: DevelopmentCertificates.Files) throws -> (Process, Int) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [
    "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", files.serverCertificate, "-key",
    files.serverKey, "-tls1_3", "-no_ticket",
  ]
  let output = Pipe()
  process.standardOutput = output
  process.standardError = output
  process.standardInput = Pipe()
  try process.run()
  var seen = ""
  while !(seen.contains("ACCEPT") && seen.hasSuffix("\n")) {
    let data = output.fileHandleForReading.availableData
    if data.isEmpty { fatalError("openssl s_server exited: \(seen)") }
    seen += String(decoding: data, as: UTF8.self)
  }
  let line = seen.split(separator: "\n").first { $0.hasPrefix("ACCEPT") }!
  // s_server reports every connection; keep its pipe drained so it never blocks on it.
  output.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
  return (process, Int(line.split(separator: ":").last!)!)
}

// MARK: - 2. Ping/pong latency

/// Sends `size` bytes, waits for them to come back, `count` times; records each round
/// trip in µs (after `warmup` unrecorded ones).
final class PingHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  let payload: ByteBuffer
  let count: Int
  let warmup: Int
  let done: EventLoopPromise<[Double]>
  private var samples: [Double] = []
  private var received = 0
  private var sent = 0
  private var started: ContinuousClock.Instant = .now

  init(size: Int, count: Int, warmup: Int, done: EventLoopPromise<[Double]>) {
    payload = ByteBuffer(repeating: 0x61, count: size)
    self.count = count
    self.warmup = warmup
    self.done = done
  }

  func channelActive(context: ChannelHandlerContext) {
    ping(context: context)
    context.fireChannelActive()
  }

  private func ping(context: ChannelHandlerContext) {
    sent += 1
    started = .now
    context.writeAndFlush(wrapOutboundOut(payload), promise: nil)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    received += unwrapInboundIn(data).readableBytes
    guard received >= payload.readableBytes else { return }
    received -= payload.readableBytes
    let elapsed = ContinuousClock.now - started
    if sent > warmup {
      samples.append(
        Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    if samples.count == count {
      done.succeed(samples)
      context.close(promise: nil)
    } else {
      ping(context: context)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    done.fail(error)
    context.close(promise: nil)
  }
}

func pingPong(tls: (server: TLSContext, client: TLSContext)?, count: Int) throws -> [Double] {
  let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  defer {
    try? serverGroup.syncShutdownGracefully()
    try? clientGroup.syncShutdownGracefully()
  }
  let server = try startServer(group: serverGroup, tls: tls?.server)
  let done = clientGroup.next().makePromise(of: [Double].self)
  _ = try ClientBootstrap(group: clientGroup)
    .channelOption(.socketOption(.tcp_nodelay), value: 1)
    .channelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        if let tls {
          try channel.pipeline.syncOperations.addHandler(
            TLSHandler(context: tls.client, serverName: "127.0.0.1"))
        }
        try channel.pipeline.syncOperations.addHandler(
          PingHandler(size: 100, count: count, warmup: 200, done: done))
      }
    }
    .connect(host: "127.0.0.1", port: server.localAddress!.port!).wait()
  let samples = try done.futureResult.wait().sorted()
  try server.close().wait()
  return samples
}

// MARK: - 3. Memory per idle connection

func memoryPerConnection(
  executable: String, serverArguments: [String], holdArguments: [String], count: Int
) throws -> (perConnection: Double, held: Int, failed: Int) {
  let server = try ChildProcess(["serve"] + serverArguments, executable: executable)
  defer { server.stop() }
  let port = server.value("PORT")
  let before = server.rss()
  let holder = try ChildProcess(
    ["hold", "--port", "\(port)", "--count", "\(count)"] + holdArguments, executable: executable)
  defer { holder.stop() }
  let held = holder.line(startingWith: "HELD").split(separator: " ")
  let after = server.rss()
  return (Double(after - before) / Double(count), Int(held[1])!, Int(held[3])!)
}

// MARK: - Main

raiseFileLimit()
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve": try serveMode(arguments)
case "hold": try holdMode(arguments)
default: break
}

let quick = arguments.contains("--quick")
let executable =
  CommandLine.arguments[0].hasPrefix("/")
  ? CommandLine.arguments[0]
  : FileManager.default.currentDirectoryPath + "/" + CommandLine.arguments[0]
let directory = NSTemporaryDirectory() + "roshambo-tls-bench-\(getpid())"
let files = try DevelopmentCertificates.create(in: directory, hosts: ["localhost", "127.0.0.1"])
defer { try? FileManager.default.removeItem(atPath: directory) }

// 1. Handshakes per second.
let seconds = quick ? 2 : 5
let ours = try ChildProcess(
  ["serve", "--tls", files.serverCertificate, files.serverKey], executable: executable)
let oursPort = ours.value("PORT")
let (openssl, opensslPort) = try startOpenSSLServer(files: files)
var oursRate: [Double] = []
var opensslRate: [Double] = []
for _ in 0..<(quick ? 1 : 3) {
  oursRate.append(try handshakesPerSecond(port: oursPort, seconds: seconds))
  opensslRate.append(try handshakesPerSecond(port: opensslPort, seconds: seconds))
}
ours.stop()
openssl.terminate()
openssl.waitUntilExit()
let oursBest = oursRate.sorted()[oursRate.count / 2]
let opensslBest = opensslRate.sorted()[opensslRate.count / 2]
print(
  "1. Full TLS 1.3 handshakes per second (openssl s_time -new, 127.0.0.1, median of \(oursRate.count))"
)
print(pad("server", 28) + pad("handshakes/s", 14) + "ratio")
print(
  pad("roshambo TLSHandler", 28) + pad(format(oursBest, 0), 14) + format(oursBest / opensslBest, 2)
    + "x")
print(pad("openssl s_server", 28) + pad(format(opensslBest, 0), 14) + "1.00x")
print(
  "target: >= 0.80x of openssl s_server: \(oursBest / opensslBest >= 0.8 ? "met" : "NOT MET")\n")
fflush(nil)

// 2. Ping/pong.
let pings = quick ? 2_000 : 20_000
let serverTLS = try TLSContext(
  .server(certificateChainFile: files.serverCertificate, privateKeyFile: files.serverKey))
let clientTLS = try TLSContext(.client(trust: .caFile(files.caCertificate)))
var tlsSamples: [Double] = []
var plainSamples: [Double] = []
for _ in 0..<3 {
  plainSamples += try pingPong(tls: nil, count: pings)
  tlsSamples += try pingPong(tls: (serverTLS, clientTLS), count: pings)
}
tlsSamples.sort()
plainSamples.sort()
let tlsP50 = percentile(tlsSamples, 0.5)
let plainP50 = percentile(plainSamples, 0.5)
print("2. 100-byte ping/pong round trip, µs (\(tlsSamples.count) each, same NIO pipeline)")
print(pad("transport", 28) + pad("p50", 10) + pad("p99", 10))
print(
  pad("TLS 1.3 (TLSHandler)", 28) + pad(format(tlsP50), 10)
    + pad(format(percentile(tlsSamples, 0.99)), 10))
print(
  pad("plain TCP", 28) + pad(format(plainP50), 10) + pad(format(percentile(plainSamples, 0.99)), 10)
)
print(
  "TLS adds \(format(tlsP50 - plainP50)) µs at p50 (target <= 15 µs): \(tlsP50 - plainP50 <= 15 ? "met" : "NOT MET")\n"
)
fflush(nil)

// 3. Memory per idle connection.
let connections = quick ? 2_000 : 10_000
let plainMemory = try memoryPerConnection(
  executable: executable, serverArguments: ["--plain"], holdArguments: ["--plain"],
  count: connections)
let tlsMemory = try memoryPerConnection(
  executable: executable, serverArguments: ["--tls", files.serverCertificate, files.serverKey],
  holdArguments: ["--ca", files.caCertificate], count: connections)
print("3. Server memory per idle connection (RSS growth / connections, \(connections) open)")
print(pad("connection", 28) + pad("KiB", 10) + "held")
print(
  pad("TLS 1.3 (TLSHandler)", 28) + pad(format(tlsMemory.perConnection / 1024), 10)
    + "\(tlsMemory.held) (\(tlsMemory.failed) failed)")
print(
  pad("plain TCP", 28) + pad(format(plainMemory.perConnection / 1024), 10)
    + "\(plainMemory.held) (\(plainMemory.failed) failed)")
print(
  "target: TLS <= 32 KiB per connection: \(tlsMemory.perConnection / 1024 <= 32 ? "met" : "NOT MET")"
)
