import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The hub's loop alone, in a world that writes down what it is asked: outputs carried
/// out in order, and an input raised while they are (a commit answered at once) handled
/// only after them.
@Suite("Hub: the runner and its world")
struct HubRunnerTests {
  /// A world that answers every commit at once and notes each output it is asked for.
  final class NotingWorld: HubWorld {
    var now: Int64 = 1_000_000
    var lines: [String] = []
    var runner: HubRunner<NotingWorld>?
    var stopAfterCommit = false
    private(set) var stopped = false
    var halted: Bool { stopped }

    func deliver(_ deliveries: [Delivery]) {
      lines.append("deliver to \(deliveries.flatMap(\.to))")
    }
    func schedule(_ timer: HubTimer, at: Int64) {
      lines.append("schedule \(timer)")
      // The flush runs once what the loop queued has run: here, from the runner's queue.
      if case .flush = timer { runner?.handle(.timerFired(.flush), in: self) }
    }
    func cancel(_ timer: HubTimer) { lines.append("cancel \(timer)") }
    func commit(_ commit: JournalCommit) {
      lines.append("commit \(commit.actions.count)")
      stopped = stopAfterCommit
      runner?.handle(.committed(.success(()), onJournalThread: false), in: self)
    }
    func writeSnapshot(_ lobby: LobbyState, through: Int64) { lines.append("snapshot") }
    func readStandings(leaders: Int, recent: Int) { lines.append("read standings") }
    func readRecord(reading: Int, match: Int64) { lines.append("read record") }
    func reload(defaults: RoomState.Settings) { lines.append("reload") }
    func probe(at: Int64) { lines.append("probe") }
    func log(_ line: HubLog) { lines.append("log \(line.message)") }
    func count(_ counted: HubCount) { lines.append("count \(counted)") }
    func news(_ sentence: String) { lines.append("news") }
    func offerNames(_ offers: [NameOffer]) { lines.append("offer names") }
    func drained() { lines.append("drained") }
    func idle() { lines.append("idle") }
  }

  func world() -> NotingWorld {
    var configuration = HubConfiguration(hasJournal: true)
    configuration.tokenSeed = 7
    let world = NotingWorld()
    world.runner = HubRunner(
      HubCore(lobby: LobbyState(defaults: .init(bestOf: 3)), configuration: configuration))
    return world
  }

  @Test("what a world raises while outputs are carried out waits for them, in order")
  func followUpsWait() throws {
    let world = world()
    let runner = try #require(world.runner)
    runner.handle(
      .received(HubHarness.hello("Alice", room: "den", fair: nil), from: HubHarness.alice),
      in: world)
    // The flush the hello scheduled runs after its log line; the commit's answer after
    // the flush's outputs; the welcome and the state only once committed.
    #expect(
      world.lines == [
        "count actionAccepted", "schedule flush", "log joined", "commit 1",
        "deliver to [1, 1]",
      ])
    #expect(runner.core.state.lobby.rooms["den"] != nil)
  }

  @Test("a halted world is handed nothing more: what was queued is dropped")
  func haltedStops() throws {
    let world = world()
    world.stopAfterCommit = true
    let runner = try #require(world.runner)
    runner.handle(
      .received(HubHarness.hello("Alice", room: "den", fair: nil), from: HubHarness.alice),
      in: world)
    #expect(world.lines.last == "commit 1")
  }

  @Test("the lines a program reads carry what they record as a value")
  func typedEvents() {
    var hub = HubHarness()
    let outputs = hub.raw(
      .received(HubHarness.hello("Alice", role: .lobby, challenges: true), from: HubHarness.alice))
    let events = outputs.compactMap { output -> HubLog.Event? in
      guard case .log(let line) = output else { return nil }
      return line.event
    }
    #expect(events == [.followingTheLobby])
  }
}
