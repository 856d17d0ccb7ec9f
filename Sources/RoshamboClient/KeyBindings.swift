import RoshamboGame

/// The keys of the match, lobby and replay screens, and the words shown for them: the
/// one place a key is bound to what it does. The match screen reads its keys here, its
/// prompt line and key line are written from here, and so are the lobby screen's and the
/// replay's.
///
/// Invariant: a key named in any hint or prompt written here is bound, here, to what
/// that hint says it does (a weapon's key is ``key(for:)`` both in the prompt and when
/// pressed).
public enum KeyBindings {
  // MARK: - The match screen

  /// What a key does on the match screen.
  public enum MatchCommand: Equatable, Sendable {
    /// Quit (asking first during a match), stop watching, or go back to the lobby.
    case quit
    case rematch
    case pick(Weapon)
  }

  /// The key that picks `weapon`: its initial, and `k` for Spock (`s` is scissors).
  public static func key(for weapon: Weapon) -> Character {
    weapon == .spock ? "k" : weapon.rawValue.first!
  }

  /// What `byte` does on the match screen in a room of `ruleset`: q and n (either case),
  /// a weapon's key (either case), or its number in the ruleset (1 to 5).
  public static func matchCommand(for byte: UInt8, ruleset: Ruleset) -> MatchCommand? {
    let pressed = Character(UnicodeScalar(byte))
    switch pressed {
    case "q", "Q": return .quit
    case "n", "N": return .rematch
    case "1"..."5":
      let index = Int(String(pressed))! - 1
      return index < ruleset.weapons.count ? .pick(ruleset.weapons[index]) : nil
    default:
      let lower = Character(pressed.lowercased())
      return ruleset.weapons.first { key(for: $0) == lower }.map { .pick($0) }
    }
  }

  /// "Choose your weapon: [r]ock [p]aper [s]cissors".
  public static func choosePrompt(_ ruleset: Ruleset) -> String {
    "Choose your weapon: " + ruleset.weapons.map(label).joined(separator: " ")
  }

  /// "[r/p/s] or [1-3] choose".
  public static func chooseHint(_ ruleset: Ruleset) -> String {
    "[" + ruleset.weapons.map { String(key(for: $0)) }.joined(separator: "/")
      + "] or [1-\(ruleset.weapons.count)] choose"
  }

  /// The weapon's name with its key in brackets: "[r]ock", "spoc[k]".
  private static func label(_ weapon: Weapon) -> String {
    let name = weapon.rawValue
    let k = key(for: weapon)
    guard let index = name.firstIndex(of: k) else { return "[\(k)]\(name)" }
    return name[..<index] + "[\(k)]" + name[name.index(after: index)...]
  }

  /// The key line's words for q and n, by what they do then.
  public static let quit = "[q]uit"
  public static let stopWatching = "[q] stop watching"
  public static let goBack = "[q] go back"
  public static let backToLobby = "[q] back to the lobby"
  public static let rematch = "[n] rematch"

  // MARK: - The lobby screen

  /// What a key does on the lobby screen.
  public enum LobbyCommand: Equatable, Sendable {
    case quit
    /// Select the previous (-1) or next (1) entry of the list.
    case move(Int)
    case switchPane
    case quickMatch
    /// Watch the selected room.
    case watch
    /// Enter: open what is selected (watch a room, replay a finished match).
    case open
    case challenge
    case accept
    case decline
    /// Decline, and every later challenge from the same person this evening.
    case declineForTheEvening
    case replay
    case enterTournament
    /// Change the rules the next challenge asks for: the server's, then each ruleset.
    case cycleRuleset
    /// Ask for a fair (commit–reveal) match in the next challenge, or not.
    case toggleFair
  }

  /// What `key` does on the lobby screen.
  public static func lobbyCommand(for key: KeyDecoder.Key) -> LobbyCommand? {
    switch key {
    case .up: return .move(-1)
    case .down: return .move(1)
    case .right, .left, .home, .end: return nil
    case .byte(let byte):
      switch Character(UnicodeScalar(byte)) {
      case "q", "Q": return .quit
      case "k": return .move(-1)
      case "j": return .move(1)
      case "\t": return .switchPane
      case "m", "M": return .quickMatch
      case "w", "W": return .watch
      case "\r", "\n": return .open
      case "c", "C": return .challenge
      case "a", "A": return .accept
      case "d", "D": return .decline
      case "b", "B": return .declineForTheEvening
      case "r", "R": return .replay
      case "t", "T": return .enterTournament
      case "o", "O": return .cycleRuleset
      case "f", "F": return .toggleFair
      default: return nil
      }
    }
  }

  /// The lobby's keys as its last lines show them. `r` says it replays a finished match:
  /// nobody takes it for a match starting.
  public static let lobbyHints = [
    "↑↓ select", "Tab list", "c challenge", "w watch", "m quick match", "t tournament",
    "r replay a finished match", "o rules, f fair", "q quit",
  ]

  /// A challenge waiting says its own keys: these, then ``blockHint(_:)``.
  public static let challengeHint = "a accept, d decline"

  /// "b decline all from Alice this evening".
  public static func blockHint(_ challenger: String) -> String {
    "b decline all from \(challenger) this evening"
  }

  // MARK: - The replay screen

  /// What a key asks of a replay.
  public enum ReplayCommand: Equatable, Sendable {
    case forward, back, start, end, togglePlay, quit

    /// The command of a key: → l n Enter (forward), ← h p (back), g Home (start), G End
    /// (end), space (play or pause), q (quit).
    public init?(_ key: KeyDecoder.Key) {
      switch key {
      case .right: self = .forward
      case .left: self = .back
      case .home: self = .start
      case .end: self = .end
      case .up, .down: return nil
      case .byte(let byte):
        switch Character(UnicodeScalar(byte)) {
        case "l", "n", "\r", "\n": self = .forward
        case "h", "p": self = .back
        case "g": self = .start
        case "G": self = .end
        case " ": self = .togglePlay
        case "q", "Q": self = .quit
        default: return nil
        }
      }
    }
  }

  /// The replay's keys as its position line shows them.
  public static let replayHints = ["← → step", "g G start/end", "space play/pause", "q leave"]
}
