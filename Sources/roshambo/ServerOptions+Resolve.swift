import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboTLS
import Sysexits

extension ServerOptions {
  /// Whether a person is at the keyboard to answer a question.
  static var interactive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

  /// These flags as the client library takes them.
  var settings: ServerSettings {
    ServerSettings(
      host: host, port: port, ca: ca, pin: pin, acceptNew: acceptNew, identity: identity,
      tlsSeconds: tlsSeconds, verbose: verbose)
  }

  /// Finds and trusts the server as these flags say (``ServerResolver``), speaking on
  /// standard error and asking at the terminal.
  var resolver: ServerResolver {
    ServerResolver(
      settings: settings, interactive: Self.interactive,
      complain: { complain(lines: $0) },
      ask: { question in
        FileHandle.standardError.write(Data(question.utf8))
        return readLine()
      })
  }

  /// Finds the server (`--host`, the fleet's allocator when `fleet` has `--allocator`, or
  /// the local network) and decides how to trust it (``ServerResolver``); throws an exit
  /// code once it has said why it cannot.
  func resolve(fleet: FleetOptions? = nil, for purpose: FleetAllocation.Purpose = .quickMatch)
    async throws -> ResolvedServer
  {
    let allocated = try await fleet.flatMap { $0.allocator == nil ? nil : $0 }?.allocate(purpose)
    do {
      return try await resolver.resolve(allocated: allocated)
    } catch let failure as ResolutionFailure {
      throw ExitCode(failure)
    }
  }

  /// A client TLS context trusting the server as `trust` says and presenting the
  /// player's identity.
  func clientTLS(trust: ServerTrust) throws -> TLSContext {
    do {
      return try resolver.clientTLS(trust: trust).0
    } catch let failure as ResolutionFailure {
      throw ExitCode(failure)
    }
  }

  /// Says why the connection to `host`:`port` failed, and gives the exit code for it.
  func cannotConnect(host: String, port: Int, _ error: any Error) -> ExitCode {
    ExitCode(resolver.cannotConnect(host: host, port: port, error))
  }
}

extension ExitCode {
  /// The exit status for a resolution that stopped.
  init(_ failure: ResolutionFailure) {
    switch failure.kind {
    case .usage: self.init(ExitStatus.usage)
    case .noInput: self.init(ExitStatus.noInput)
    case .dataError: self.init(ExitStatus.dataError)
    case .untrusted: self.init(ExitStatus.untrusted)
    case .unavailable: self.init(ExitStatus.unavailable)
    case .declined: self.init(ExitStatus.failure)
    }
  }
}
