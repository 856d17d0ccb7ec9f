import RoshamboGame
import RoshamboProtocol

/// Text from the network made safe to print: nothing in it can move the cursor, change
/// colours, set the window title or clipboard, make the terminal answer, ring the bell,
/// or reorder what follows. C0 controls, DEL and ESC are shown in caret form (`^[`); C1
/// controls, bidirectional overrides and isolates and other invisible format characters
/// as `<U+202E>`.
///
/// Invariant: the result of ``sanitized(_:)`` holds no scalar below U+0020, none from
/// U+007F to U+009F, and no format (Cf), line or paragraph separator, private-use or
/// unassigned scalar.
public enum TerminalText {
  public static func sanitized(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      guard isUnsafe(scalar) else {
        out.append(scalar)
        continue
      }
      let visible: String
      switch scalar.value {
      case 0..<0x20: visible = "^" + String(Unicode.Scalar(UInt8(scalar.value) + 0x40))
      case 0x7F: visible = "^?"
      default: visible = "<U+" + String(scalar.value, radix: 16, uppercase: true) + ">"
      }
      out.append(contentsOf: visible.unicodeScalars)
    }
    return String(out)
  }

  /// What a person reads when the server closed their connection for hearing nothing.
  public static let silenceClosed =
    "The server heard nothing from this computer for a while (was it asleep, or the network "
    + "down?) and closed the connection. Run roshambo again to come back: a seat of yours "
    + "in a match waits for you a little while."

  /// A name as a screen shows it: sanitized, and cut to the columns a name may take.
  public static func name(_ text: String) -> String {
    DisplayWidth.truncated(sanitized(text), toColumns: PlayerName.maxColumns)
  }

  static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
    if value < 0xA0 { return false }
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate,
      .control:
      return true
    default:
      return false
    }
  }
}

extension ServerMessage {
  /// The message with every string a person will read made safe (see ``TerminalText``).
  /// Applied once, where server messages become client state.
  public func sanitized() -> ServerMessage {
    switch self {
    case .welcome(let room, let seat, let token, let rate):
      return .welcome(room: TerminalText.sanitized(room), seat: seat, token: token, rate: rate)
    case .state(let seq, var view):
      view.room = TerminalText.sanitized(view.room)
      for index in view.players.indices {
        view.players[index].name = TerminalText.name(view.players[index].name)
      }
      for index in view.history.indices {
        view.history[index].reason = view.history[index].reason.map(TerminalText.sanitized)
      }
      if var stage = view.tournament {
        stage.byes = stage.byes.map(TerminalText.name)
        stage.champion = stage.champion.map(TerminalText.name)
        view.tournament = stage
      }
      return .state(seq: seq, view: view)
    case .error(var error, let re):
      error.code = ErrorCode(rawValue: TerminalText.sanitized(error.code.rawValue))
      // The server's words for a connection it heard nothing from are for programs (which
      // ping while they wait); this client pings by itself, so its silence was a
      // computer asleep or a network gone: said so, for the person at the terminal.
      error.message =
        error.code == .timeout
        ? TerminalText.silenceClosed : TerminalText.sanitized(error.message)
      return .error(error, re: re)
    case .pong:
      return self
    case .lobby(let seq, var view):
      for index in view.people.indices {
        view.people[index].name = TerminalText.name(view.people[index].name)
        view.people[index].room = view.people[index].room.map(TerminalText.sanitized)
      }
      for index in view.rooms.indices {
        view.rooms[index].name = TerminalText.sanitized(view.rooms[index].name)
        view.rooms[index].players = view.rooms[index].players.map { $0.map(TerminalText.name) }
      }
      for index in view.leaders.indices {
        view.leaders[index].name = TerminalText.name(view.leaders[index].name)
      }
      view.server = view.server.map(TerminalText.name)
      for index in view.recent.indices {
        view.recent[index].room = TerminalText.sanitized(view.recent[index].room)
        view.recent[index].players = view.recent[index].players.map(TerminalText.name)
      }
      if var tournament = view.tournament {
        for index in tournament.standings.indices {
          tournament.standings[index].name = TerminalText.name(tournament.standings[index].name)
        }
        for index in tournament.pairings.indices {
          tournament.pairings[index].players = tournament.pairings[index].players.map(
            TerminalText.name)
          tournament.pairings[index].room = tournament.pairings[index].room.map(
            TerminalText.sanitized)
          tournament.pairings[index].winner = tournament.pairings[index].winner.map(
            TerminalText.name)
        }
        tournament.champion = tournament.champion.map(TerminalText.name)
        view.tournament = tournament
      }
      return .lobby(seq: seq, view: view)
    case .lobbyPatch:
      // Applied to the view unsanitized (its fingerprint is of the server's text), then
      // the resulting view is sanitized as a `lobby` view.
      return self
    case .challenge(var notice):
      notice.from = TerminalText.name(notice.from)
      notice.to = TerminalText.name(notice.to)
      return .challenge(notice)
    case .record(let match, let re):
      return .record(match.sanitized(), re: re)
    }
  }
}

extension FinishedMatch {
  /// The record with every string a person will read made safe (see ``TerminalText``);
  /// names go through the same function, so the winner still names a player.
  public func sanitized() -> FinishedMatch {
    var match = self
    match.room = TerminalText.sanitized(room)
    match.players = players.map(TerminalText.name)
    match.winner = TerminalText.name(winner)
    match.ruleset = TerminalText.sanitized(ruleset)
    match.rounds = rounds?.map { round in
      var round = round
      round.reason = round.reason.map(TerminalText.sanitized)
      return round
    }
    return match
  }
}
