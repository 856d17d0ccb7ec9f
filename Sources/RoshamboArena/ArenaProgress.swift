import Foundation

/// Where a running arena stands, for its progress line: pairings done and running, the
/// rounds played so far, and an estimate of the time left.
///
/// Invariant: the estimate never counts more rounds than the pairings left can play (a
/// pairing that has not started counts at most its cap).
public struct ArenaProgress: Sendable, Equatable {
  /// A pairing being played: its bots' names and the rounds its rooms have played.
  public struct Running: Sendable, Equatable {
    public var first: String
    public var second: String
    public var played: Int

    public init(first: String, second: String, played: Int) {
      self.first = first
      self.second = second
      self.played = played
    }
  }

  public var pairings: Int
  public var done: Int
  public var running: [Running]
  public var roundsPlayed: Int
  /// Rounds the finished pairings played (counted or not).
  public var roundsPlayedByDone: Int
  public var roundCap: Int
  public var seconds: Double

  public init(
    pairings: Int, done: Int, running: [Running], roundsPlayed: Int, roundsPlayedByDone: Int,
    roundCap: Int, seconds: Double
  ) {
    self.pairings = pairings
    self.done = done
    self.running = running
    self.roundsPlayed = roundsPlayed
    self.roundsPlayedByDone = roundsPlayedByDone
    self.roundCap = roundCap
    self.seconds = seconds
  }

  /// Seconds left: the rounds the unfinished pairings are expected to play at the rate
  /// so far (nil before any round). A pairing waiting to start is expected to play as
  /// much of its cap as the finished ones did on average (all of it before any has
  /// finished); one running, the rest of its cap (the pairings that go on are those the
  /// test finds hard to decide).
  public var secondsLeft: Double? {
    guard roundsPlayed > 0, seconds > 0 else { return nil }
    let share =
      done > 0 ? min(1, Double(roundsPlayedByDone) / Double(done * max(roundCap, 1))) : 1
    let expected = Double(roundCap) * share
    let waiting = Double(max(0, pairings - done - running.count)) * expected
    let inPlay = running.reduce(0.0) { $0 + max(0, Double(roundCap - $1.played)) }
    return (waiting + inPlay) / (Double(roundsPlayed) / seconds)
  }

  /// One line of at most `width` columns: "12/66 pairings · 48,210 rounds, 2,310/s ·
  /// about 35 s left · rock–paper, cycle–markov, …".
  public func line(width: Int = 80) -> String {
    var line = "\(done)/\(pairings) pairings · \(grouped(roundsPlayed)) rounds"
    if seconds > 0 { line += ", \(grouped(Int((Double(roundsPlayed) / seconds).rounded())))/s" }
    if let left = secondsLeft {
      line +=
        " · about " + (left < 90 ? "\(Int(left.rounded())) s" : "\(Int((left / 60).rounded())) min")
        + " left"
    }
    var names = running.map { "\($0.first)–\($0.second)" }
    var playing = ""
    while !names.isEmpty {
      let shown = names.joined(separator: ", ")
      let rest = running.count - names.count
      playing = " · " + shown + (rest > 0 ? " +\(rest)" : "")
      if line.count + playing.count <= width { break }
      names.removeLast()
      playing = ""
    }
    if playing.isEmpty, !running.isEmpty, line.count + 12 <= width {
      playing = " · \(running.count) running"
    }
    return String((line + playing).prefix(width))
  }
}
