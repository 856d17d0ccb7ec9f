import Foundation
import NIOCore
import NIOPosix
import ProcessFixtures
import RoshamboClient
import RoshamboServer
import RoshamboTLS
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the real `roshambo` with `arguments` against `port` (trusting the test CA), with
/// no terminal; returns its exit status and what it printed. It may not outlive
/// `seconds` (a hang is a failure: it is ended and the status says so).
func runRoshambo(_ arguments: [String], port: Int, seconds: Double = 120) async throws -> (
  status: Int32, printed: String
) {
  let (process, pipe) = try startRoshambo(arguments, port: port)
  let (status, printed) = await awaitExit(process, pipe, seconds: seconds)
  return (status, printed)
}

/// Starts the real `roshambo` with `arguments` against `port` on 127.0.0.1 (trusting the
/// test CA), standard input empty, standard output and error into the pipe returned.
func startRoshambo(_ arguments: [String], port: Int) throws -> (Process, Pipe) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: repositoryRoot + "/.build/debug/roshambo")
  process.arguments =
    arguments + [
      "--host", "127.0.0.1", "--port", String(port), "--ca",
      ClientTestCertificates.files.caCertificate,
      // A loaded test run may take seconds for TLS; the limit has tests of its own.
      "--tls-seconds", "60",
    ]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  process.standardInput = FileHandle.nullDevice
  try process.run()
  return (process, pipe)
}

/// Returns once `condition` holds, checking as often as the executor lets it; fails the
/// test (throws) if it does not hold within 60 s (a bound on a hang, not a timing).
func waitUntil(
  _ what: String, isolation: isolated (any Actor)? = #isolation,
  _ condition: () async throws -> Bool
) async throws {
  let deadline = ContinuousClock.now + .seconds(60)
  while try await !condition() {
    guard ContinuousClock.now < deadline else {
      throw TimedOut(description: "waited 60 s for: \(what)")
    }
    await Task.yield()
  }
}

struct TimedOut: Error, CustomStringConvertible {
  let description: String
}

@Suite("What a LAN party meets in its first hour", .serialized)
struct FirstHourTests {
  @Test("a bot refused from a full room says so and exits 1 at once (it used to hang)")
  @MainActor
  func fullRoom() async throws {
    try await withTestServer { server in
      let tls = try ClientTestCertificates.clientTLS()
      var sessions: [ClientSession] = []
      for name in ["Alice", "Bob"] {
        let connection = try await ServerConnection.connect(
          host: "127.0.0.1", port: server.port, tls: tls)
        let session = ClientSession(connection: connection)
        session.join(name: name, room: "den")
        sessions.append(session)
        Task { _ = await session.run() }
      }
      try await waitUntil("den's match starts") {
        try await server.lobby().rooms["den"]?.phase == .choosing
      }
      let port = server.port
      let (status, printed) = try await runRoshambo(
        ["bot", "--room", "den", "--name", "Carol"], port: port)
      #expect(status == 1, "\(printed)")
      #expect(printed.contains("already has two players"), "\(printed)")
      for session in sessions { session.hangUp() }
    }
  }

  @Test("watching a room that does not exist says so and exits 1, off a terminal too")
  func noSuchRoom() async throws {
    try await withTestServer { server in
      let port = server.port
      let (status, printed) = try await runRoshambo(["watch", "--room", "nosuch"], port: port)
      #expect(status == 1, "\(printed)")
      #expect(printed.contains("There is no room named nosuch."), "\(printed)")
    }
  }

  @Test("a bot whose quick-match opponent leaves plays the next one (it used to wait forever)")
  func strandedBotPlaysOn() async throws {
    try await withTestServer { server in
      let port = server.port
      // Alice plays one match and leaves; Bob wants two; Carol comes for one.
      // (Fixed weapons: every round is decided, so every match ends.)
      func bot(_ name: String, matches: Int, _ weapon: String) -> Task<
        (status: Int32, printed: String), any Error
      > {
        Task {
          try await runRoshambo(
            ["bot", "--name", name, "--matches", String(matches), "--strategy", weapon],
            port: port)
        }
      }
      let alice = bot("Alice", matches: 1, "rock")
      try await waitUntil("Alice waits") { try await server.lobby().waitingPlayers == 1 }
      let bob = bot("Bob", matches: 2, "paper")
      let first = try await alice.value
      #expect(first.status == 0, "\(first.printed)")
      let carol = bot("Carol", matches: 1, "scissors")
      let (second, third) = (try await bob.value, try await carol.value)
      #expect(second.status == 0, "Bob: \(second.printed)")
      #expect(second.printed.contains("against Carol"), "Bob: \(second.printed)")
      #expect(third.status == 0, "Carol: \(third.printed)")
      #expect(try await server.lobby().waitingPlayers == 0)
    }
  }

  @Test("a quick match whose opponent left before its first round is not one of a bot's matches")
  @MainActor
  func calledOffQuickMatch() async throws {
    try await withTestServer { server in
      let port = server.port
      let fay = Task {
        try await runRoshambo(
          ["bot", "--name", "Fay", "--matches", "1", "--strategy", "rock"], port: port)
      }
      try await waitUntil("Fay waits") { try await server.lobby().waitingPlayers == 1 }
      // Dora is paired with Fay and leaves before a pick: so goes one whom quick match moved
      // into Fay's room just as their own last match ended (the board's bots met it).
      let tls = try ClientTestCertificates.clientTLS()
      let dora = ClientSession(
        connection: try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls))
      dora.join(name: "Dora", room: nil)
      let leaving = Task { _ = await dora.run() }
      try await waitUntil("Dora's match starts") { dora.store.state.view?.phase == .choosing }
      dora.store.dispatch(.quit)
      await leaving.value
      // Fay's one match is the next, against Gus (a Fay that counted Dora's forfeit would
      // have gone, and Gus waited in vain).
      let gus = Task {
        try await runRoshambo(
          ["bot", "--name", "Gus", "--matches", "1", "--strategy", "scissors"], port: port,
          seconds: 60)
      }
      let (played, other) = (try await fay.value, try await gus.value)
      #expect(played.status == 0, "Fay: \(played.printed)")
      #expect(
        played.printed.contains("Dora left before the first round; waiting for another opponent"),
        "Fay: \(played.printed)")
      #expect(played.printed.contains("match 1: won against Gus"), "Fay: \(played.printed)")
      #expect(!played.printed.contains("against Dora"), "Fay: \(played.printed)")
      #expect(other.status == 0, "Gus: \(other.printed)")
    }
  }

  @Test("a refused connection is said in a player's words; the library's only with --verbose")
  func refusedConnection() async throws {
    // A port held by a socket that never listens: nothing answers there, and no other
    // test's connection can take it as its own port meanwhile (a connection from a port to
    // itself would connect).
    let held = try #require(LoopbackSocket.bound(listening: false))
    defer { close(held.descriptor) }
    let port = held.port
    let (status, printed) = try await runRoshambo(["bot", "--name", "Zed"], port: port)
    #expect(status == 69)
    // (Run first, it also says it made the player's identity.)
    #expect(
      printed.hasSuffix(
        "\nroshambo: nothing is listening on 127.0.0.1:\(port): is roshambo-server running "
          + "there, on that port?\n")
        || printed
          == "roshambo: nothing is listening on 127.0.0.1:\(port): is roshambo-server running "
          + "there, on that port?\n",
      "\(printed)")
    #expect(!printed.contains("Connection refused"), "\(printed)")
    let verbose = try await runRoshambo(["bot", "--name", "Zed", "--verbose"], port: port)
    #expect(verbose.printed.contains("Connection refused"), "\(verbose.printed)")
  }

  @Test("each way a connection fails has its own sentence")
  func failureKinds() {
    let address = "10.0.0.9:7443"
    func kind(_ error: any Error) -> ConnectionFailure.Kind {
      ConnectionFailure(error, host: "10.0.0.9", address: address).kind
    }
    #expect(kind(IOError(errnoCode: ECONNREFUSED, reason: "connect")) == .refused)
    #expect(kind(IOError(errnoCode: EHOSTUNREACH, reason: "connect")) == .unreachable)
    #expect(kind(IOError(errnoCode: ENETUNREACH, reason: "connect")) == .unreachable)
    #expect(kind(IOError(errnoCode: ETIMEDOUT, reason: "connect")) == .timedOut)
    #expect(kind(ChannelError.connectTimeout(.seconds(10))) == .timedOut)
    let sentences = [ConnectionFailure.Kind.refused, .timedOut, .unreachable, .unknownHost, .other]
    #expect(Set(sentences.map { sentence(for: $0) }).count == sentences.count)
    for kind in sentences {
      #expect(!sentence(for: kind).contains("Error"), "\(sentence(for: kind))")
    }
    func sentence(for kind: ConnectionFailure.Kind) -> String {
      let error: any Error =
        switch kind {
        case .refused: IOError(errnoCode: ECONNREFUSED, reason: "connect")
        case .timedOut: ChannelError.connectTimeout(.seconds(1))
        case .unreachable: IOError(errnoCode: EHOSTUNREACH, reason: "connect")
        case .unknownHost:
          unknownHost()
        case .other: ChannelError.ioOnClosedChannel
        }
      return ConnectionFailure(error, host: "x", address: address).sentence
    }
  }

  /// The error resolving a name that cannot exist gives (the `.invalid` top-level domain).
  func unknownHost() -> any Error {
    do {
      _ = try SocketAddress.makeAddressResolvingHost("nosuch.invalid", port: 1)
      return ChannelError.ioOnClosedChannel
    } catch {
      return error
    }
  }

  @Test("the default name: USER, then LOGNAME, then the password database; never 'player'")
  func defaultName() {
    #expect(LoginName.resolve(environment: ["USER": "ana"], account: "root") == "ana")
    #expect(LoginName.resolve(environment: ["USER": "", "LOGNAME": "bo"], account: "root") == "bo")
    #expect(LoginName.resolve(environment: ["USER": ""], account: "carol") == "carol")
    #expect(LoginName.resolve(environment: [:], account: nil) == nil)
    // A login name the player-name rule refuses is passed over.
    #expect(LoginName.resolve(environment: ["USER": "a\u{7}b"], account: "dee") == "dee")
    #expect(LoginName.account() != nil, "this test runs as a user in the password database")
  }

  @Test("bots without --name get names of their own")
  func botNames() {
    let names = (0..<100).map { _ in Bot.randomName() }
    #expect(names.allSatisfy { $0.count == 8 && $0.hasPrefix("bot-") })
    #expect(
      names.allSatisfy { $0.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) } })
    #expect(Set(names).count > 90)
  }
}
