import RoshamboGame

/// What the next commit makes durable: every accepted lobby action since the last one,
/// the matches they finished, and who asked (to answer them if the commit fails).
///
/// Invariant: it holds exactly the actions accepted since the last ``clear()``, in the
/// order they were reduced; nothing of them is sent before they are committed.
struct JournalBatch {
  private(set) var actions: [LobbyAction] = []
  private(set) var matches: [FinishedMatch] = []
  private(set) var origins: [Origin] = []
  var isEmpty: Bool { actions.isEmpty && matches.isEmpty }

  /// What a sealed batch holds: the commit's rows and matches, and whom it concerns.
  struct Sealed {
    var actions: [LobbyAction] = []
    var matches: [FinishedMatch] = []
    var origins: [Origin] = []
  }

  /// Takes everything for a commit, leaving the batch empty.
  mutating func seal() -> Sealed {
    defer { clear() }
    return Sealed(actions: actions, matches: matches, origins: origins)
  }

  mutating func clear() {
    actions.removeAll(keepingCapacity: true)
    matches.removeAll()
    origins.removeAll(keepingCapacity: true)
  }

  /// Records an accepted action (with who asked for it) for the next commit.
  mutating func record(_ action: LobbyAction, origin: Origin?) {
    actions.append(action)
    if let origin { origins.append(origin) }
  }

  /// Records a match the batch's actions finished.
  mutating func record(_ match: FinishedMatch) {
    matches.append(match)
  }
}
