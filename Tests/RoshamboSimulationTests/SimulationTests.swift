import ProcessFixtures
import RoshamboSimulation
import Testing

/// The simulator on a fixed set of seeds: whole evenings with every fault, in virtual
/// time, the invariants after every step (a few seconds in all).
@Suite("Simulation: fixed seeds", .cpuBound)
struct SimulationTests {
  @Test(
    "fixed seeds: an evening with every fault keeps every invariant",
    arguments: [1, 2, 3] as [UInt64])
  func fixedSeeds(seed: UInt64) {
    let simulation = Simulation(
      SimulationConfiguration(seed: seed, hours: 0.5, players: 8, faults: .all))
    let failure = simulation.run()
    #expect(
      failure == nil,
      "\(failure.map(String.init(describing:)) ?? "")\n\(simulation.trace.recent.suffix(40).joined(separator: "\n"))"
    )
    // The evening happened: rounds were played and matches finished.
    #expect((simulation.counts["round"] ?? 0) > 30)
    #expect((simulation.counts["match over"] ?? 0) > 8)
  }

  @Test("one seed is one evening: the same steps and the same trace twice")
  func reproducible() {
    let configuration = SimulationConfiguration(seed: 7, hours: 0.1, players: 6)
    let first = Simulation(configuration)
    let second = Simulation(configuration)
    _ = first.run()
    _ = second.run()
    #expect(first.steps == second.steps)
    #expect(first.trace.digest == second.trace.digest)
    let other = Simulation(SimulationConfiguration(seed: 8, hours: 0.1, players: 6))
    _ = other.run()
    #expect(other.trace.digest != first.trace.digest)
  }

  @Test("faults are parsed from their list, and a wrong one is refused")
  func faults() {
    #expect(SimulationConfiguration.Faults(list: "crash, disk") == [.crash, .disk])
    #expect(SimulationConfiguration.Faults(list: "all") == .all)
    #expect(SimulationConfiguration.Faults(list: "none") == [])
    #expect(SimulationConfiguration.Faults(list: "meteor") == nil)
    #expect(
      SimulationConfiguration(seed: 3, hours: 2, players: 16, faults: [.crash, .network]).command
        == "roshambo-simulate --seed 3 --hours 2.0 --players 16 --faults crash,network")
  }
}
