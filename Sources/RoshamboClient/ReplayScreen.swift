import Foundation
import RoshamboGame
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A match replayed on the terminal: the live game's screen (``ScreenRenderer``) for each
/// step of a ``MatchReplay``, with keys to step through it; piped, one line per round.
///
/// Invariant: the terminal is put back and the keys released before `run` returns.
@MainActor
public final class ReplayScreen {
  /// What a key asks of the replay (the keys are ``KeyBindings``'s).
  public typealias Command = KeyBindings.ReplayCommand

  private var replay: MatchReplay
  private let speed: Double
  private let title: String
  private let terminal = TerminalSession()
  private var keys = KeyDecoder()
  private var playing = true
  private var player: Task<Void, Never>?
  private var finished: CheckedContinuation<Void, Never>?

  /// `title` names the match ("match 42", or the file); `speed` multiplies the pace the
  /// rounds were played at; `paused`: wait for space (or a step) instead of playing.
  public init(_ replay: MatchReplay, title: String, speed: Double, paused: Bool = false) {
    self.replay = replay
    self.title = title
    self.speed = speed
    self.playing = !paused
  }

  /// The lines a pipe gets: one per round, then the result, as live play prints them.
  public static func lines(for replay: MatchReplay) -> [String] {
    var replay = replay
    // Only the end is reduced (a seek reduces the match from its start): each line's round
    // comes from the record itself, as step k of the replay shows round k.
    replay.seek(to: replay.lastStep)
    let props = replay.state.props
    guard replay.lastStep > 0 else {
      // A match given up before its first round resolved.
      return [["no rounds", props.banner].compactMap { $0 }.joined(separator: " | ")]
    }
    let players = replay.match.players
    let name = { (seat: Seat) in
      players.indices.contains(seat.rawValue - 1) ? players[seat.rawValue - 1] : "?"
    }
    var lines = (replay.match.rounds ?? []).map { round in
      // Who picked what, by name, then what the round made.
      let picks = Seat.allCases.map { seat in
        let pick = round.weapon(of: seat)?.rawValue
        return name(seat) + " "
          + (pick ?? (round.commitment(of: seat) != nil ? "sealed" : "nothing"))
      }
      return [
        "round \(round.round)", picks.joined(separator: ", "),
        roundSentence(round, you: nil, name: name),
      ]
      .joined(separator: " | ")
    }
    // The match's end: on the last round's line, or, given up, on a line of its own (who
    // gave it up, in which round), since that round's result did not end it.
    if replay.match.forfeit {
      lines.append([props.result, props.banner].compactMap { $0 }.joined(separator: " | "))
    } else if let banner = props.banner {
      lines[lines.count - 1] += " | " + banner
    }
    return lines
  }

  /// The line under the game that says where the replay is and which keys move it.
  static func position(of replay: MatchReplay, title: String, playing: Bool) -> String {
    let rounds = replay.lastStep
    let at =
      replay.position == 0
      ? "start"
      : replay.position == rounds
        ? "end (\(rounds) round\(rounds == 1 ? "" : "s"))"
        : "after round \(replay.roundShown?.round ?? replay.position) of \(rounds)"
    return "Replay of \(title) · \(at) · \(playing ? "playing" : "paused") · "
      + KeyBindings.replayHints.joined(separator: " · ")
  }

  /// Shows the replay until the person quits (or, piped, prints it and returns).
  /// Returns the signal that ended it, if one did (nil: the person pressed q).
  @discardableResult
  public func run() async -> Int32? {
    guard Terminal.isInteractive else {
      for line in Self.lines(for: replay) { print(line) }
      return nil
    }
    terminal.begin(
      onKey: { [weak self] byte in
        guard let self, let key = self.keys.feed(byte), let command = Command(key) else { return }
        self.perform(command)
      },
      onSignal: { [weak self] number in self?.received(signal: number) })
    show()
    schedule()
    await withCheckedContinuation { finished = $0 }
    player?.cancel()
    terminal.end()
    return signalled
  }

  /// The signal that ended the replay, if one did.
  private var signalled: Int32?

  func perform(_ command: Command) {
    switch command {
    case .forward: replay.stepForward()
    case .back: replay.stepBack()
    case .start: replay.seek(to: 0)
    case .end: replay.seek(to: replay.lastStep)
    case .togglePlay:
      playing.toggle()
      if playing, replay.position == replay.lastStep { replay.seek(to: 0) }
    case .quit:
      finished?.resume()
      finished = nil
      return
    }
    if command != .togglePlay { playing = playing && replay.position < replay.lastStep }
    show()
    schedule()
  }

  /// How long to show `step` before the next while playing: the time between the two
  /// rounds as they were played, sped up, within 0.3 to 5 s (1.5 s without times).
  private func pause(after step: Int) -> Duration {
    let rounds = replay.match.rounds ?? []
    guard step > 0, step < rounds.count else { return Self.pause(from: nil, to: nil, speed: speed) }
    return Self.pause(from: rounds[step - 1].at, to: rounds[step].at, speed: speed)
  }

  /// How long to show a round played at `from` (milliseconds since 1970, from a record:
  /// any value) before the next, played at `to`: their interval divided by `speed`,
  /// within 0.3 to 5 s; 1.5 s without times. Computed in floating point, so no record's
  /// times can overflow it.
  static func pause(from: Int64?, to: Int64?, speed: Double) -> Duration {
    var seconds = 1.5
    if let from, let to {
      seconds = (Double(to) - Double(from)) / 1000
    }
    return .milliseconds(Int64(min(5, max(0.3, seconds / speed)) * 1000))
  }

  private func schedule() {
    player?.cancel()
    guard playing, replay.position < replay.lastStep else {
      playing = false
      return
    }
    let wait = pause(after: replay.position)
    player = Task { @MainActor [weak self] in
      try? await Task.sleep(for: wait)
      guard !Task.isCancelled, let self else { return }
      self.replay.stepForward()
      self.show()
      self.schedule()
    }
  }

  private func show() {
    var props = replay.state.props
    props.notice = Self.position(of: replay, title: title, playing: playing)
    let size = Terminal.size
    let color = ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    terminal.draw(
      ScreenRenderer(width: size.columns, height: size.rows, color: color).lines(for: props))
  }

  /// A resize redraws; any other signal ends the replay, and is returned.
  private func received(signal number: Int32) {
    if number == SIGWINCH {
      show()
    } else {
      signalled = number
      perform(.quit)
    }
  }

}
