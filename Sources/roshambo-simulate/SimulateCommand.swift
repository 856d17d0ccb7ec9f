import ArgumentParser
import Foundation
import RoshamboSimulation
import Sysexits

/// `roshambo-simulate`: whole LAN parties in virtual time, seed by seed, with faults, and
/// the invariants after every step.
@main
struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "roshambo-simulate",
    abstract:
      "Simulate whole LAN parties in virtual time, with faults, checking the server's invariants after every step.",
    discussion: """
      Runs the real hub, a journal under the real one's contract and people made of the \
      real client's parts in one thread, on a virtual clock. A failing seed prints the \
      invariant that failed and the one command that replays it. See docs/SIMULATION.md.
      """)

  @Option(help: "The first seed.")
  var seed: UInt64 = 1

  @Option(help: "How many seeds to run, from --seed up.")
  var seeds: Int = 1

  @Option(help: "Simulated hours per seed.")
  var hours: Double = 1

  @Option(help: "People at the party.")
  var players: Int = 16

  @Option(help: "Faults to inject: all, none, or a list of crash,disk,network,people.")
  var faults: String = "all"

  @Flag(help: "Print the steps before a failure (inputs, outputs, times).")
  var trace = false

  @Option(help: "How many of the last steps --trace prints.")
  var traceLines = 400

  func validate() throws {
    guard SimulationConfiguration.Faults(list: faults) != nil else {
      throw ValidationError(
        "--faults: \(faults) is not a list of crash, disk, network, people (or all, none)")
    }
    guard players >= 2 else { throw ValidationError("--players: a party needs at least 2 people") }
    guard hours > 0 else { throw ValidationError("--hours: must be more than 0") }
    guard seeds >= 1 else { throw ValidationError("--seeds: at least 1") }
    guard traceLines >= 1 else { throw ValidationError("--trace-lines: at least 1") }
  }

  func run() throws {
    let faults = SimulationConfiguration.Faults(list: self.faults)!
    let started = Date()
    var simulated: Int64 = 0
    var failed: [UInt64] = []
    for offset in 0..<seeds {
      let configuration = SimulationConfiguration(
        seed: seed &+ UInt64(offset), hours: hours, players: players, faults: faults)
      let simulation = Simulation(configuration, traceLines: traceLines)
      let failure = simulation.run()
      simulated += simulation.simulatedMillis
      if let failure {
        failed.append(configuration.seed)
        print("seed \(configuration.seed): FAILED \(failure)")
        if trace {
          for line in simulation.trace.recent { print("  \(line)") }
        }
        print("  replay: \(configuration.command) --trace")
      } else if seeds == 1 {
        print(
          "seed \(configuration.seed): passed, \(simulation.steps) steps, trace \(simulation.trace.digest)"
            + " (\(simulation.trace.bytes) bytes)")
        print(
          "  "
            + simulation.counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            .joined(separator: ", "))
      }
    }
    let wall = Date().timeIntervalSince(started)
    let ratio = Double(simulated) / 1_000 / max(wall, 0.000_001)
    print(
      "\(seeds - failed.count) of \(seeds) seeds passed; \(String(format: "%.0f", Double(simulated) / 1_000)) simulated s in "
        + "\(String(format: "%.2f", wall)) wall s: \(String(format: "%.0f", ratio))× real time")
    if !failed.isEmpty { throw ExitCode(ExitStatus.failure) }
  }
}
