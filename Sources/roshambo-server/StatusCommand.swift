import ArgumentParser
import Foundation
import Logging
import NIOCore
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboOperations
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Sysexits
import UnixSignals

struct Status: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print how a running server is doing, from its operations endpoint.",
    discussion: """
      Reads /readyz and /metrics from the server's --metrics-address (127.0.0.1:9464 by \
      default) and prints the figures a host looks at: ready or why not, people, rooms, \
      connections, rounds and matches, refusals by code, the journal. docs/OPERATIONS.md \
      explains each metric.

      Exit status: 0 the server is ready; 1 it answers but is not ready; 69 nothing \
      answers there.
      """)

  /// `--metrics-address`, given before or after `status`, is the server's own option.
  @ParentCommand var server: RoshamboServerCommand

  func run() throws {
    let address = server.options.metricsAddress ?? OperationsAddress(argument: "127.0.0.1:9464")!
    let (host, port) = (address.host, address.port)
    do {
      let readiness = try OperationsClient.get(host: host, port: port, path: "/readyz")
      let metrics = try OperationsClient.get(host: host, port: port, path: "/metrics")
      guard metrics.status == 200 else {
        complain("\(host):\(port) answered /metrics with \(metrics.status).")
        throw ExitCode(ExitStatus.unavailable)
      }
      let status = ServerStatus(
        metrics: metrics.body, readiness: (readiness.status, readiness.body))
      print(status.lines.joined(separator: "\n"))
      if readiness.status != 200 { throw ExitCode(ExitStatus.failure) }
    } catch let failure as OperationsClient.Failure {
      complain(failure.description)
      throw ExitCode(ExitStatus.unavailable)
    }
  }
}

/// `--metrics-address`: HOST:PORT ([HOST]:PORT for IPv6); port 0 picks a free one.
struct OperationsAddress: ExpressibleByArgument {
  var host: String
  var port: Int

  init?(argument: String) {
    guard let colon = argument.lastIndex(of: ":"),
      let port = Int(argument[argument.index(after: colon)...]), (0...65_535).contains(port)
    else { return nil }
    var host = String(argument[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { return nil }
    self.host = host
    self.port = port
  }
}
