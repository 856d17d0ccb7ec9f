// TLS benchmarks, each figure printed beside its baselines measured in the same run:
//   1. full handshakes per second and the server's CPU per handshake: our server next to
//      swift-nio-ssl (BoringSSL) in the same NIO server and `openssl s_server`, all driven
//      by `openssl s_time -new` on 127.0.0.1; with the suite and key exchange each chose;
//   2. p50/p99 of a 100-byte ping/pong: over our TLSHandler, over swift-nio-ssl, and over
//      plain TCP, through the same NIO pipeline;
//   3. server memory per idle connection with 10,000 open: ours, swift-nio-ssl, plain TCP.
//
// Usage: swift run -c release tls-bench [--quick] [--pin] [--only handshakes|pings|memory]
// --pin puts the whole run (servers, clients, s_time) on CPU 0: on these VMs a wake-up
// across vCPUs costs 100 µs or more and swings from run to run, which drowns the
// difference between the TLS stacks.
// (internal modes used by the run itself: `serve`, `hold`)
import BenchmarkSupport
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import RoshamboTLS

/// Which TLS a server or client runs.
enum Stack: String, CaseIterable {
  case ours, niossl, plain

  var label: String {
    switch self {
    case .ours: "roshambo TLSHandler"
    case .niossl: "swift-nio-ssl"
    case .plain: "plain TCP"
    }
  }
}

/// swift-nio-ssl's contexts for the same certificate and CA.
func nioSSLContexts(_ files: DevelopmentCertificates.Files) throws -> (
  server: NIOSSLContext, client: NIOSSLContext
) {
  let server = NIOSSL.TLSConfiguration.makeServerConfiguration(
    certificateChain: try NIOSSLCertificate.fromPEMFile(files.serverCertificate).map {
      .certificate($0)
    },
    privateKey: .privateKey(try NIOSSLPrivateKey(file: files.serverKey, format: .pem)))
  var client = NIOSSL.TLSConfiguration.makeClientConfiguration()
  client.trustRoots = .file(files.caCertificate)
  return (try NIOSSLContext(configuration: server), try NIOSSLContext(configuration: client))
}

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

/// The server side of `stack` for a new channel, if it has one.
enum ServerTLS {
  case ours(TLSContext)
  case niossl(NIOSSLContext)

  func handler() throws -> any ChannelHandler {
    switch self {
    case .ours(let context): try TLSHandler(context: context)
    case .niossl(let context): NIOSSLServerHandler(context: context)
    }
  }
}

func startServer(
  group: any EventLoopGroup, tls: ServerTLS?, port: Int = 0
) throws -> any Channel {
  try ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .serverChannelOption(.backlog, value: 4096)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        if let tls { try channel.pipeline.syncOperations.addHandler(try tls.handler()) }
        try channel.pipeline.syncOperations.addHandler(EchoHandler())
      }
    }
    .bind(host: "127.0.0.1", port: port).wait()
}

// MARK: - Child modes

/// `serve (--tls CERT KEY [--allow-tls12] | --niossl CERT KEY | --plain)`: a one-thread
/// echo server; prints `PORT <n>`, then answers `rss` on stdin with `RSS <bytes>` until
/// stdin closes.
func serveMode(_ arguments: [String]) throws -> Never {
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  var tls: ServerTLS?
  if let index = arguments.firstIndex(of: "--tls") {
    tls = .ours(
      try TLSContext(
        .server(
          certificateChainFile: arguments[index + 1], privateKeyFile: arguments[index + 2],
          allowTLS12: arguments.contains("--allow-tls12"))))
  } else if let index = arguments.firstIndex(of: "--niossl") {
    let configuration = NIOSSL.TLSConfiguration.makeServerConfiguration(
      certificateChain: try NIOSSLCertificate.fromPEMFile(arguments[index + 1]).map {
        .certificate($0)
      },
      privateKey: .privateKey(try NIOSSLPrivateKey(file: arguments[index + 2], format: .pem)))
    tls = .niossl(try NIOSSLContext(configuration: configuration))
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
    if case .handshakeCompleted = event as? TLSUserEvent { counter.add() }
  }
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    counter.add(failed: true)
  }
}

/// `hold --port P --count N (--ca FILE | --niossl-ca FILE | --plain)`: opens N
/// connections (handshaking each), prints `HELD <n> FAILED <m>`, and keeps them open
/// until stdin closes.
func holdMode(_ arguments: [String]) throws -> Never {
  let port = Int(arguments[arguments.firstIndex(of: "--port")! + 1])!
  let count = Int(arguments[arguments.firstIndex(of: "--count")! + 1])!
  let tls = try arguments.firstIndex(of: "--ca").map {
    try TLSContext(.client(trust: .caFile(arguments[$0 + 1])))
  }
  let niossl = try arguments.firstIndex(of: "--niossl-ca").map { index -> NIOSSLContext in
    var configuration = NIOSSL.TLSConfiguration.makeClientConfiguration()
    configuration.trustRoots = .file(arguments[index + 1])
    return try NIOSSLContext(configuration: configuration)
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
            if let niossl {
              try channel.pipeline.syncOperations.addHandler(
                NIOSSLClientHandler(context: niossl, serverHostname: nil))
            }
            try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(counter: counter))
          }
        }
        .connect(host: "127.0.0.1", port: port)
    }
    for future in batch {
      let channel = try future.wait()
      channels.append(channel)
      if tls == nil, niossl == nil { counter.add() }
    }
    // Wait for this batch's handshakes before opening more, without sleeping blind.
    while tls != nil || niossl != nil,
      counter.values.ok + counter.values.failed < channels.count
    {
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

/// Contexts of each stack for the same certificate.
struct Contexts {
  let oursServer: TLSContext
  let oursClient: TLSContext
  let niosslServer: NIOSSLContext
  let niosslClient: NIOSSLContext
}

func pingPong(_ stack: Stack, contexts: Contexts, count: Int) throws -> [Double] {
  let serverGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  defer {
    try? serverGroup.syncShutdownGracefully()
    try? clientGroup.syncShutdownGracefully()
  }
  let serverTLS: ServerTLS? =
    switch stack {
    case .ours: .ours(contexts.oursServer)
    case .niossl: .niossl(contexts.niosslServer)
    case .plain: nil
    }
  let server = try startServer(group: serverGroup, tls: serverTLS)
  let done = clientGroup.next().makePromise(of: [Double].self)
  _ = try ClientBootstrap(group: clientGroup)
    .channelOption(.socketOption(.tcp_nodelay), value: 1)
    .channelInitializer { channel in
      channel.eventLoop.makeCompletedFuture {
        switch stack {
        case .ours:
          try channel.pipeline.syncOperations.addHandler(
            TLSHandler(context: contexts.oursClient, serverName: "127.0.0.1"))
        case .niossl:
          try channel.pipeline.syncOperations.addHandler(
            NIOSSLClientHandler(context: contexts.niosslClient, serverHostname: nil))
        case .plain:
          break
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
/// `--only handshakes|pings|memory` runs one section.
let only = arguments.firstIndex(of: "--only").map { arguments[$0 + 1] }
func runs(_ section: String) -> Bool { only == nil || only == section }
let executable =
  CommandLine.arguments[0].hasPrefix("/")
  ? CommandLine.arguments[0]
  : FileManager.default.currentDirectoryPath + "/" + CommandLine.arguments[0]
if arguments.contains("--pin"), ProcessInfo.processInfo.environment["TLS_BENCH_PINNED"] == nil {
  // The whole run again under `taskset -c 0`: every thread and child on CPU 0.
  let again = Process()
  again.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
  again.arguments = ["-c", "0", executable] + arguments
  again.environment = ProcessInfo.processInfo.environment.merging(["TLS_BENCH_PINNED": "1"]) {
    $1
  }
  try again.run()
  again.waitUntilExit()
  exit(again.terminationStatus)
}
let directory = NSTemporaryDirectory() + "roshambo-tls-bench-\(getpid())"
let files = try DevelopmentCertificates.create(in: directory, hosts: ["localhost", "127.0.0.1"])
defer { try? FileManager.default.removeItem(atPath: directory) }

let pinned = arguments.contains("--pin") ? ", client and servers pinned to CPU 0" : ""

/// User plus system CPU time of process `pid`, µs (`/proc/PID/stat`).
func cpuMicros(_ pid: Int32) -> Double {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return .nan }
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  // After the command: state is field 3, utime 14 and stime 15 (1-based) of the line.
  let ticks = Double(fields[11])! + Double(fields[12])!
  return ticks * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// What `openssl s_client` reports a server negotiated: suite and key exchange.
func negotiated(port: Int) -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-brief"]
  let output = Pipe()
  process.standardOutput = output
  process.standardError = output
  process.standardInput = Pipe()
  guard (try? process.run()) != nil else { return "?" }
  try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  func value(_ key: String) -> String {
    text.split(separator: "\n").first { $0.hasPrefix(key) }.map {
      $0.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
    } ?? "?"
  }
  return value("Ciphersuite:") + ", " + value("Server Temp Key:")
}

if runs("handshakes") {
  // 1. Handshakes per second, and the server's CPU per handshake.
  let seconds = quick ? 2 : 5
  struct HandshakeRun {
    let label: String
    let port: Int
    let pid: Int32
    var rates: [Double] = []
    var cpuPerHandshake: [Double] = []
  }
  let oursServer = try ChildProcess(
    ["serve", "--tls", files.serverCertificate, files.serverKey], executable: executable)
  let niosslServer = try ChildProcess(
    ["serve", "--niossl", files.serverCertificate, files.serverKey], executable: executable)
  let (openssl, opensslPort) = try startOpenSSLServer(files: files)
  var runs = [
    HandshakeRun(
      label: Stack.ours.label, port: oursServer.value("PORT"),
      pid: oursServer.process.processIdentifier),
    HandshakeRun(
      label: Stack.niossl.label, port: niosslServer.value("PORT"),
      pid: niosslServer.process.processIdentifier),
    HandshakeRun(label: "openssl s_server", port: opensslPort, pid: openssl.processIdentifier),
  ]
  let suites = runs.map { negotiated(port: $0.port) }
  for _ in 0..<(quick ? 1 : 3) {
    for index in runs.indices {
      let before = cpuMicros(runs[index].pid)
      let start = Date()
      let rate = try handshakesPerSecond(port: runs[index].port, seconds: seconds)
      let count = rate * Date().timeIntervalSince(start)
      runs[index].rates.append(rate)
      runs[index].cpuPerHandshake.append((cpuMicros(runs[index].pid) - before) / count)
    }
  }
  oursServer.stop()
  niosslServer.stop()
  openssl.terminate()
  openssl.waitUntilExit()
  func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
  let niosslRate = median(runs[1].rates)
  let niosslCPU = median(runs[1].cpuPerHandshake)
  print(
    "1. Full TLS 1.3 handshakes (openssl s_time -new, 127.0.0.1, median of \(runs[0].rates.count)\(pinned))"
  )
  print(
    pad("server", 22) + pad("handshakes/s", 14) + pad("÷ nio-ssl", 11) + pad("CPU µs each", 13)
      + pad("÷ nio-ssl", 11) + "negotiated")
  for (run, suite) in zip(runs, suites) {
    let rate = median(run.rates)
    let cpu = median(run.cpuPerHandshake)
    print(
      pad(run.label, 22) + pad(format(rate, 0), 14) + pad(format(rate / niosslRate, 2) + "x", 11)
        + pad(format(cpu, 0), 13) + pad(format(cpu / niosslCPU, 2) + "x", 11) + suite)
  }
  let oursRate = median(runs[0].rates)
  let oursCPU = median(runs[0].cpuPerHandshake)
  print(
    "targets: handshakes/s >= swift-nio-ssl's: \(oursRate >= niosslRate ? "met" : "NOT MET"); "
      + "server CPU per handshake <= 1.2x swift-nio-ssl's: \(oursCPU <= 1.2 * niosslCPU ? "met" : "NOT MET")"
  )
  print(
    "(BoringSSL prefers AES-128-GCM and offers X25519MLKEM768; OpenSSL 3.0 has no ML-KEM, and our\n"
      + " server prefers AES-256-GCM: the suites and key exchanges above are what each chose.)\n")
  fflush(nil)
}

if runs("pings") {
  // 2. Ping/pong.
  let pings = quick ? 2_000 : 20_000
  let (niosslServerContext, niosslClientContext) = try nioSSLContexts(files)
  let contexts = Contexts(
    oursServer: try TLSContext(
      .server(certificateChainFile: files.serverCertificate, privateKeyFile: files.serverKey)),
    oursClient: try TLSContext(.client(trust: .caFile(files.caCertificate))),
    niosslServer: niosslServerContext, niosslClient: niosslClientContext)
  var samples: [Stack: [Double]] = [:]
  for _ in 0..<3 {
    for stack in Stack.allCases {
      samples[stack, default: []] += try pingPong(stack, contexts: contexts, count: pings)
    }
  }
  print(
    "2. 100-byte ping/pong round trip, µs (\(samples[.plain]!.count) each, same NIO pipeline\(pinned))"
  )
  print(pad("transport", 22) + pad("p50", 10) + pad("p99", 10) + "TLS adds at p50")
  let plainP50 = percentile(samples[.plain]!.sorted(), 0.5)
  var added: [Stack: Double] = [:]
  for stack in Stack.allCases {
    let sorted = samples[stack]!.sorted()
    let p50 = percentile(sorted, 0.5)
    added[stack] = p50 - plainP50
    print(
      pad(stack.label, 22) + pad(format(p50), 10) + pad(format(percentile(sorted, 0.99)), 10)
        + (stack == .plain ? "" : format(p50 - plainP50) + " µs"))
  }
  print(
    "target: what TLS adds at p50 <= swift-nio-ssl's: "
      + "\(added[.ours]! <= added[.niossl]! ? "met" : "NOT MET") "
      + "(\(format(added[.ours]! / added[.niossl]!, 2))x)\n")
  fflush(nil)
}

if runs("memory") {
  // 3. Memory per idle connection.
  let connections = quick ? 2_000 : 10_000
  var memory: [Stack: (perConnection: Double, held: Int, failed: Int)] = [:]
  memory[.plain] = try memoryPerConnection(
    executable: executable, serverArguments: ["--plain"], holdArguments: ["--plain"],
    count: connections)
  memory[.ours] = try memoryPerConnection(
    executable: executable, serverArguments: ["--tls", files.serverCertificate, files.serverKey],
    holdArguments: ["--ca", files.caCertificate], count: connections)
  memory[.niossl] = try memoryPerConnection(
    executable: executable,
    serverArguments: ["--niossl", files.serverCertificate, files.serverKey],
    holdArguments: ["--niossl-ca", files.caCertificate], count: connections)
  print("3. Server memory per idle connection (RSS growth / connections, \(connections) open)")
  print(pad("connection", 22) + pad("KiB", 10) + "held")
  for stack in Stack.allCases {
    let run = memory[stack]!
    print(
      pad(stack.label, 22) + pad(format(run.perConnection / 1024), 10)
        + "\(run.held) (\(run.failed) failed)")
  }
  let oursMemory = memory[.ours]!.perConnection
  let niosslMemory = memory[.niossl]!.perConnection
  print(
    "target: ours <= swift-nio-ssl's: \(oursMemory <= niosslMemory ? "met" : "NOT MET") "
      + "(\(format(oursMemory / niosslMemory, 2))x)")
}
