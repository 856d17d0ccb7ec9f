/// What one simulated evening is: its seed, how long it lasts in simulated time, how many
/// people come, and which faults strike.
///
/// Invariant: the seed alone decides every random choice, so two runs of the same
/// configuration on the same code are the same evening, step for step.
public struct SimulationConfiguration: Sendable, Equatable {
  public var seed: UInt64
  /// Simulated hours.
  public var hours: Double
  public var players: Int
  public var faults: Faults

  /// The faults a simulation injects.
  public struct Faults: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The server is killed (what was not durable is lost) and started again.
    public static let crash = Faults(rawValue: 1)
    /// The journal's disk fills for a while: commits and probes fail.
    public static let disk = Faults(rawValue: 2)
    /// Connections drop, and hosts are cut off from the server for a while.
    public static let network = Faults(rawValue: 4)
    /// Players close their terminals and come back, or do not.
    public static let people = Faults(rawValue: 8)
    public static let all: Faults = [.crash, .disk, .network, .people]

    /// Parses a comma-separated list (`crash,disk,network,people`, `all` or `none`).
    public init?(list: String) {
      var faults: Faults = []
      for word in list.split(separator: ",").map({ String($0.filter { !$0.isWhitespace }) }) {
        switch word {
        case "all": faults.formUnion(.all)
        case "none", "": break
        case "crash": faults.insert(.crash)
        case "disk": faults.insert(.disk)
        case "network": faults.insert(.network)
        case "people": faults.insert(.people)
        default: return nil
        }
      }
      self = faults
    }

    public var list: String {
      if self == .all { return "all" }
      if isEmpty { return "none" }
      return [(Faults.crash, "crash"), (.disk, "disk"), (.network, "network"), (.people, "people")]
        .filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }
  }

  public init(seed: UInt64, hours: Double = 1, players: Int = 16, faults: Faults = .all) {
    self.seed = seed
    self.hours = hours
    self.players = players
    self.faults = faults
  }

  /// The one command that replays this evening.
  public var command: String {
    "roshambo-simulate --seed \(seed) --hours \(hours) --players \(players) --faults \(faults.list)"
  }
}
