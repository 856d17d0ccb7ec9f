import Foundation
import NIOCore
import RoshamboArena
import RoshamboClient
import RoshamboGame

/// One bot of an arena, as the command line names it: a built-in strategy
/// (``BotStrategy``, by its name) or a program (`exec:COMMAND`) that picks for it.
///
/// Invariant: `name` is what the command line said, so the report names each bot as the
/// person wrote it, and ``init(argument:)`` of it gives the same bot back.
public enum ArenaBot: Sendable, Hashable {
  case builtIn(BotStrategy)
  /// A program run with `/bin/sh -c`, one process per seat of each game.
  case program(command: String)

  /// The bot a command-line word names, or a sentence saying why it names none.
  public init(argument: String) throws(ArenaFailure) {
    if argument.hasPrefix("exec:") {
      let command = String(argument.dropFirst(5))
      guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw ArenaFailure("exec: needs a command after it, as in exec:'python3 bot.py'.")
      }
      self = .program(command: command)
    } else if let strategy = BotStrategy(rawValue: argument) {
      self = .builtIn(strategy)
    } else {
      throw ArenaFailure(
        "\(argument) is neither a built-in bot ("
          + BotStrategy.allCases.map(\.rawValue).joined(separator: ", ")
          + ") nor exec:COMMAND.")
    }
  }

  public var name: String {
    switch self {
    case .builtIn(let strategy): strategy.rawValue
    case .program(let command): "exec:" + command
    }
  }

  /// What picks for this bot in one seat of one game, on `loop`.
  func picker(
    seed: UInt64, loop: any EventLoop, groups: ProgramGroups,
    failed: @escaping (ArenaFailure) -> Void
  ) -> any SeatPicker {
    switch self {
    case .builtIn(let strategy):
      return StrategyPicker(StrategyPlayer(strategy: strategy, seed: seed))
    case .program(let command):
      return ProgramPicker(command: command, loop: loop, groups: groups, failed: failed)
    }
  }
}

/// Why an arena could not be played, in the words of the person who ran it.
///
/// Invariant: its description is one sentence that names what failed (a bot, a room, the
/// server), never only a library's error.
public struct ArenaFailure: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) { self.description = description }
}
