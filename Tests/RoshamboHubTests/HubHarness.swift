import RoshamboGame
import RoshamboProtocol

@testable import RoshamboHub

/// A ``HubCore`` driven by hand in a test: inputs in at a clock the test moves, outputs
/// out as short lines to compare exactly. No socket, loop, disk, thread or sleep.
struct HubHarness {
  var core: HubCore
  var now: Int64 = 1_000_000
  /// The commit asked for and not yet answered.
  var pendingCommit: JournalCommit?

  init(
    lobby: LobbyState = LobbyState(defaults: .init(bestOf: 3)),
    configure: (inout HubConfiguration) -> Void = { _ in }
  ) {
    var configuration = HubConfiguration(hasJournal: true)
    configuration.tokenSeed = 7
    configure(&configuration)
    core = HubCore(lobby: lobby, configuration: configuration)
  }

  var state: HubState { core.state }

  static let alice = Peer(id: 1, identity: "key-a")
  static let bob = Peer(id: 2, identity: "key-b")
  static let carol = Peer(id: 3, identity: "key-c")

  /// Alice and Bob following the lobby, able to take challenges, everything sent.
  static func following() -> HubHarness {
    var hub = HubHarness()
    _ = hub.say(alice, hello("Alice", role: .lobby, challenges: true))
    _ = hub.say(bob, hello("Bob", role: .lobby, challenges: true))
    _ = hub.settle()
    return hub
  }

  /// Hands `input` to the core; its outputs as lines.
  mutating func handle(_ input: HubInput) -> [String] {
    raw(input).flatMap(describe)
  }

  mutating func raw(_ input: HubInput) -> [HubOutput] {
    let outputs = core.handle(input, now: now)
    for case .commit(let commit) in outputs { pendingCommit = commit }
    return outputs
  }

  mutating func say(_ peer: Peer, _ message: ClientMessage) -> [String] {
    handle(.received(message, from: peer))
  }

  /// The flush timer fires (the driver ran what it had queued).
  mutating func flush() -> [String] { handle(.timerFired(.flush)) }

  /// The commit asked for is durable.
  mutating func committed(onJournalThread: Bool = false) -> [String] {
    pendingCommit = nil
    return handle(.committed(.success(()), onJournalThread: onJournalThread))
  }

  /// Flushes, and answers every commit asked for with success, until none is asked.
  mutating func settle() -> [String] {
    var lines = flush()
    while pendingCommit != nil { lines += committed() }
    return lines
  }

  /// Moves the clock and fires `timer` (it must be running).
  mutating func fire(_ timer: HubTimer) -> [String] {
    if let at = state.timers[timer]?.at { now = max(now, at) }
    return handle(.timerFired(timer))
  }

  static func hello(
    _ name: String, role: ClientMessage.Role = .player, room: String? = nil,
    resume: String? = nil, challenges: Bool = false, fair: Bool? = true
  ) -> ClientMessage {
    .hello(
      protocol: WireProtocol.version, name: name, role: role, room: room, resume: resume,
      fair: fair, challenges: challenges, id: 1)
  }

  /// The messages delivered to `peer` in `outputs`, decoded.
  static func messages(to peer: Peer, in outputs: [HubOutput]) -> [ServerMessage] {
    outputs.flatMap { output -> [ServerMessage] in
      guard case .deliver(let deliveries) = output else { return [] }
      return deliveries.compactMap { delivery in
        guard delivery.to.contains(peer.id), let payload = delivery.payload else { return nil }
        return try? ServerMessage.decode(payload)
      }
    }
  }

  func describe(_ output: HubOutput) -> [String] {
    switch output {
    case .deliver(let deliveries):
      return deliveries.map { delivery in
        let to = delivery.to.sorted().map(String.init).joined(separator: ",")
        guard let payload = delivery.payload else { return "→\(to) close" }
        guard let message = try? ServerMessage.decode(payload) else { return "→\(to) ?" }
        return "→\(to) " + Self.summary(message)
      }
    case .schedule(let timer, let at): return ["schedule \(timer) +\(at - now)"]
    case .cancel(let timer): return ["cancel \(timer)"]
    case .commit(let commit):
      return [
        "commit \(commit.actions.count)"
          + (commit.matches.isEmpty ? "" : " +\(commit.matches.count) match")
          + (commit.inline ? "" : " on the journal's thread")
      ]
    case .writeSnapshot(_, let through): return ["snapshot through \(through)"]
    case .readStandings: return ["read standings"]
    case .readRecord(let reading, let match): return ["read record \(match) (\(reading))"]
    case .reload: return ["reload"]
    case .probe: return ["probe"]
    case .log(let line): return ["log \(line.message)"]
    case .count(let counted): return ["count \(counted)"]
    case .news(let sentence): return ["news \(sentence)"]
    case .offerNames(let offers):
      return offers.map { "offer \($0.kind) \($0.folded) by \($0.identity) at +\($0.at - now)" }
    case .drained: return ["drained"]
    case .idle: return ["idle"]
    }
  }

  static func summary(_ message: ServerMessage) -> String {
    switch message {
    case .welcome(let room, let seat, _, _):
      "welcome \(room) seat \(seat.map { "\($0.rawValue)" } ?? "-")"
    case .state(let seq, let view): "state \(view.room) #\(seq) \(view.phase) round \(view.round)"
    case .error(let error, _): "error \(error.code)"
    case .lobby(let seq, _): "lobby #\(seq)"
    case .challenge(let notice): "challenge \(notice.id) \(notice.status)"
    case .record: "record"
    default: "\(message)"
    }
  }
}

extension HubHarness {
  /// A started hub whose lobby plays best of 1 and whose server runs round-robin
  /// tournaments (entries open; the first starts 10 s after its first entrant).
  static func roundRobin(configure: (inout HubConfiguration) -> Void = { _ in }) -> HubHarness {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 1))) { configuration in
      configuration.tournament = TournamentPlan(
        kind: .roundRobin, settings: .init(bestOf: 1), players: 0, startMillis: 10_000,
        pauseMillis: 3_000)
      configure(&configuration)
    }
    _ = hub.handle(.start(releasing: []))
    _ = hub.settle()
    return hub
  }
}
