import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#endif

/// The process groups of the programs one arena run started: each program runs in a
/// process group of its own (``ProgramProcess`` starts it so, numbered as the process), so
/// that stopping it stops whatever it started too, and a program that ignores `bye` and
/// the end of its input does not outlive the arena.
///
/// Invariant: a group is listed from its program's start until it was killed or found
/// empty; every group still listed when the run ends is killed. Runs do not share one
/// (two arenas in one process never stop each other's programs).
final class ProgramGroups: Sendable {
  /// Guards the groups: pickers add and kill on the arena's loop, the run's end reads.
  private let live = NIOLockedValueBox<Set<pid_t>>([])

  /// The program started as `group` (its process id, which leads the group).
  func started(_ group: pid_t) {
    live.withLockedValue { _ = $0.insert(group) }
  }

  /// Kills every process of `group`, and forgets it.
  func kill(_ group: pid_t) {
    guard live.withLockedValue({ $0.remove(group) }) != nil else { return }
    _ = Glibc.kill(-group, SIGKILL)
  }

  /// Waits up to `patience` for every listed group to empty (programs leave of
  /// themselves after `bye`), then kills those that have not.
  func finish(patience: Duration) async {
    let deadline = ContinuousClock.now + patience
    while ContinuousClock.now < deadline {
      let empty = live.withLockedValue { live in
        live = live.filter { Glibc.kill(-$0, 0) == 0 }
        return live.isEmpty
      }
      if empty { return }
      try? await Task.sleep(for: .milliseconds(20))
    }
    for group in live.withLockedValue({ $0 }) { kill(group) }
  }
}
