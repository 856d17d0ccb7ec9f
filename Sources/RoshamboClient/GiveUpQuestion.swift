/// The match screen's question before a running match is given up: the first q (or
/// Ctrl-C) asks, the same again gives the match up, and any other key answers "play on"
/// and does nothing else, as the lobby's question before leaving a tournament does.
///
/// Invariant: a key that answers the question is never also a command (a weapon's key
/// pressed to dismiss the question picks nothing).
struct GiveUpQuestion: Equatable, Sendable {
  /// What asks to quit.
  enum Asking: Equatable, Sendable {
    case quitKey
    case interrupt

    /// How the question names it: "q", "Ctrl-C".
    var name: String { self == .quitKey ? "q" : "Ctrl-C" }
  }

  /// What a key (or Ctrl-C) does now.
  enum Outcome: Equatable, Sendable {
    /// Quit: nothing running to give up, or asked and pressed again.
    case quit
    /// Ask first (``notice(opponent:)`` says what).
    case ask
    /// The question is answered: play on, and do nothing else with the key.
    case playOn
    /// No question is open: the key does what it does.
    case command
  }

  /// The asking the question waits on a second of, if it is open.
  private(set) var open: Asking?

  /// `asking` (nil: any other key) pressed, the player's match running or not.
  mutating func pressed(_ asking: Asking?, inRunningMatch: Bool) -> Outcome {
    guard let asking else {
      guard open != nil else { return .command }
      open = nil
      return .playOn
    }
    guard inRunningMatch, open != asking else {
      open = nil
      return .quit
    }
    open = asking
    return .ask
  }

  /// What the screen says once the question is answered "play on": the key did nothing
  /// else, so a weapon's key pressed to answer must be pressed again.
  static let playingOn = "You play on: that key only answered the question."

  /// The question, with the name of who would win by forfeit.
  func notice(opponent: String) -> String? {
    open.map {
      "Give up the match? Press \($0.name) again to quit (\(opponent) wins by forfeit); "
        + "any other key plays on."
    }
  }
}
