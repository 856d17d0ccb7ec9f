import Foundation
import RoshamboTLS

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a command reaches its server: where to find it and how to trust it
/// (``ServerSettings``), the fleet's allocator when there is one, and the keepalive the
/// client promises. It speaks on standard error and asks at the terminal.
///
/// Invariant: a failure to find, trust or connect to the server is thrown as a
/// ``CommandExit`` only after its reason was said.
public struct ServerAccess: Sendable {
  public var settings: ServerSettings
  /// The silence before the client pings the server, ms (`--keepalive`).
  public var keepaliveMillis: Int64
  /// The fleet's allocator, which names the server instead of the settings.
  public var allocator: FleetAllocator?

  public init(settings: ServerSettings, keepaliveMillis: Int64, allocator: FleetAllocator? = nil) {
    self.settings = settings
    self.keepaliveMillis = keepaliveMillis
    self.allocator = allocator
  }

  public var keepaliveInterval: Duration { .milliseconds(keepaliveMillis) }

  /// Whether a person is at the keyboard to answer a question.
  public static var interactive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

  /// Finds and trusts the server as the settings say (``ServerResolver``), speaking on
  /// standard error and asking at the terminal.
  public var resolver: ServerResolver {
    ServerResolver(
      settings: settings, interactive: Self.interactive,
      complain: { StandardError.complain(lines: $0) },
      ask: { question in
        StandardError.write(question)
        return readLine()
      })
  }

  /// Finds the server (the allocator's choice for `purpose`, `--host`, or the local
  /// network) and decides how to trust it.
  public func resolve(for purpose: FleetAllocation.Purpose = .quickMatch) async throws
    -> ResolvedServer
  {
    let allocated = try await allocator?.allocate(purpose)
    do {
      return try await resolver.resolve(allocated: allocated)
    } catch let failure as ResolutionFailure {
      throw CommandExit(failure)
    }
  }

  /// Connects to `server`, saying what to do when it fails.
  public func connect(_ server: ResolvedServer) async throws -> ServerConnection {
    do {
      return try await resolver.connect(server)
    } catch let failure as ResolutionFailure {
      throw CommandExit(failure)
    }
  }

  /// How a session gets a new connection to `server` after one drops.
  public func reconnector(_ server: ResolvedServer)
    -> @Sendable () async throws
    -> ServerConnection
  {
    { try await server.connect() }
  }

  /// A client TLS context trusting the server as `trust` says and presenting the
  /// player's identity.
  public func clientTLS(trust: ServerTrust) throws -> TLSContext {
    do {
      return try resolver.clientTLS(trust: trust).0
    } catch let failure as ResolutionFailure {
      throw CommandExit(failure)
    }
  }

  /// Where `name`'s seat on `server` is kept while a match runs (nil without a home
  /// directory to keep it in).
  @MainActor
  public func seatMemory(_ server: ResolvedServer, name: String) -> SeatMemory? {
    guard
      let directory = HeldSeat.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    else { return nil }
    return SeatMemory(
      path: HeldSeat.path(in: directory, host: server.host, port: server.port, name: name),
      name: name)
  }

  /// Plays the match `seats` says this person left running, if there is one: nil when
  /// there is none (``SeatMemory/takeBack(name:keepaliveMillis:connect:reconnect:thenLobby:)``).
  public func takeBackSeat(_ server: ResolvedServer, name: String, seats: SeatMemory?) async
    -> Screen.Ending?
  {
    guard let seats else { return nil }
    return await MainActor.run {
      Task { @MainActor in
        await seats.takeBack(
          name: name, keepaliveMillis: keepaliveMillis,
          connect: { try await connect(server) },
          reconnect: reconnector(server), thenLobby: false)
      }
    }.value
  }
}
