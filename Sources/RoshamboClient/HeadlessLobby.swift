import RoshamboPlayer
import RoshamboProtocol

/// The lobby of a program without a screen (`roshambo bot --lobby`, `--challenge`,
/// `--tournament`, `roshambo challenge`): a lobby follower's ``PlayerDriver`` that does
/// what ``LobbySeating`` says with each piece of news, until the server seats it. A lost
/// connection is the core's to take back (said once, and "back in the lobby" after).
///
/// Invariant: it sends nothing itself (every request is a command to the driver), and
/// ``run()`` returns the driver only once the server seated it.
@MainActor
public final class HeadlessLobby {
  /// How the wait in the lobby ended.
  public enum Outcome: Sendable {
    /// The server seated this program: the driver's session plays the match on.
    case seated(PlayerDriver)
    /// ``abandon()`` ended the wait (the program exited, a signal came).
    case abandoned
    /// It stopped without a seat for a reason of its own (a challenge declined, no
    /// tournament): the sentence says why.
    case stopped(String)
    /// The session ended: why.
    case ended(PlayerEnd)
  }

  public let driver: PlayerDriver
  private var seating: LobbySeating
  private let say: (String) -> Void
  private var abandoned = false
  private var stopped = false

  /// `driver`: a lobby follower's (role `.lobby`, taking challenges), not yet started.
  /// `say`: a line for the person running the program.
  public init(
    driver: PlayerDriver, goal: LobbySeating.Goal, wait: Duration = .seconds(10),
    say: @escaping (String) -> Void
  ) {
    self.driver = driver
    self.seating = LobbySeating(name: driver.core.configuration.name, goal: goal, wait: wait)
    self.say = say
  }

  /// Follows the lobby until the server seats this program or the wait ends.
  public func run() async -> Outcome {
    driver.lobbyNews = { [weak self] news in self?.received(news) }
    // The person to challenge is waited for for `wait`, no longer.
    let wait = seating.wait
    let giveUp = Task { [weak self] in
      try? await Task.sleep(for: wait)
      guard !Task.isCancelled, let self, self.seating.waitedTooLong() else { return }
      self.stop()
    }
    let end = await driver.follow()
    giveUp.cancel()
    driver.lobbyNews = nil
    if abandoned { return .abandoned }
    if let problem = seating.endedWithoutSeat(), stopped { return .stopped(problem) }
    guard let end else { return .seated(driver) }
    return .ended(end)
  }

  /// Ends the wait (before a seat): the follower leaves.
  public func abandon() {
    if case .seated = driver.core.state.phase { return }
    guard driver.core.state.end == nil else { return }
    abandoned = true
    driver.command(.leave)
  }

  private func stop() {
    stopped = true
    driver.command(.leave)
  }

  private func received(_ news: LobbyNews) {
    for action in seating.handle(news) {
      switch action {
      case .say(let line): say(line)
      case .challenge(let person, let ruleset, let fair):
        driver.command(.challenge(person, ruleset: ruleset, fair: fair))
      case .accept(let challenge): driver.command(.accept(challenge))
      case .enterTournament: driver.command(.enterTournament)
      case .stop: stop()
      }
    }
  }
}
