import Foundation
import PowerCutVFS
import RoshamboGame
import RoshamboServer
import Testing

@testable import RoshamboJournal

/// What a commit that returned survives when the machine loses power: the journal is
/// opened through a VFS that keeps what is written in memory until it is synced, and a
/// cut loses the rest (see `PowerCutVFS.h`); then the journal is opened again and loaded.
@Suite("Server: the journal through a power cut")
struct JournalPowerCutTests {
  static let vfs: String = {
    let code = powercut_register()
    precondition(code == 0, "powercut_register: SQLite error \(code)")
    return "powercut"
  }()

  /// Players joining rooms of their own, one action each.
  static func actions(_ count: Int) -> [LobbyAction] {
    (1...count).map { .join(room: "r\($0)", name: "P\($0)", token: "t\($0)", at: Int64($0)) }
  }

  /// A journal in a new directory, through the VFS, holding `first` on the disk: they
  /// are committed, then the journal's connections are closed (the last close
  /// checkpoints, which syncs), so a cut can only lose what is committed after.
  static func freshJournal(_ durability: JournalDurability, holding first: [LobbyAction] = [])
    throws -> (String, Journal)
  {
    let directory = temporaryDataDirectory()
    try {
      let journal = try Journal(directory: directory, durability: durability, vfs: vfs)
      if !first.isEmpty { try journal.append(first, matches: []) }
    }()
    return (directory, try Journal(directory: directory, durability: durability, vfs: vfs))
  }

  /// Commits `actions` after the two joins one commit each (each returned: a client may
  /// have seen it), cuts the power, and loads what the journal holds once opened again.
  static func commitThenCut(_ actions: [LobbyAction], _ durability: JournalDurability) throws
    -> (lobby: LobbyState, lastSeq: Int64)
  {
    // The journal's connections are closed when it goes, at the end of this scope.
    let directory = try {
      let (directory, journal) = try freshJournal(durability, holding: Array(actions.prefix(2)))
      for action in actions.dropFirst(2) { try journal.append([action], matches: []) }
      powercut_cut(directory)
      return directory
    }()
    let reopened = try Journal(directory: directory, durability: durability, vfs: vfs)
    return (try reopened.load(defaults: .init()).lobby, reopened.lastSeq)
  }

  /// The lobby after `actions`, as the journal keeps it.
  static func lobby(after actions: [LobbyAction]) -> LobbyState {
    var lobby = LobbyState(defaults: .init())
    for action in actions { lobby.apply(action) }
    return tokensHashed(lobby)
  }

  @Test("with --durability power, every commit that returned survives a power cut")
  func powerKeepsEveryCommit() throws {
    let actions = Self.actions(24)
    let after = try Self.commitThenCut(actions, .power)
    #expect(after.lastSeq == 24)
    #expect(after.lobby == Self.lobby(after: actions))
  }

  @Test("with --durability process, a power cut loses the commits since the last checkpoint")
  func processLosesCommits() throws {
    let actions = Self.actions(24)
    let after = try Self.commitThenCut(actions, .process)
    // The joins were checkpointed (synced); nothing synced the WAL since, so every pick
    // is gone though its commit returned: the risk `power` pays a sync per commit for.
    #expect(after.lastSeq == 2)
    #expect(after.lobby == Self.lobby(after: Array(actions.prefix(2))))
  }

  @Test("with --durability power, a commit costs one sync however many actions it holds")
  func oneSyncPerCommit() throws {
    let (directory, journal) = try Self.freshJournal(.power)
    let actions = Self.actions(42)
    func syncs(_ commit: () throws -> Void) rethrows -> Int {
      let before = powercut_syncs(directory)
      try commit()
      return powercut_syncs(directory) - before
    }
    // (The first commit after opening starts the WAL again, which syncs its header too.)
    try journal.append([actions[0]], matches: [])
    let one = try syncs { try journal.append([actions[1]], matches: []) }
    let forty = try syncs { try journal.append(Array(actions[2...]), matches: []) }
    #expect(one == 1)
    #expect(forty == 1)
    let process = try Self.freshJournal(.process)
    let none = try syncs { try process.1.append([actions[0]], matches: []) }
    #expect(none == 0)
  }
}
