import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A bot program's process, as every part of roshambo starts one (`roshambo bot --exec`,
/// the arena's `exec:` bots): `/bin/sh -c COMMAND` in a process group of its own (so that
/// Ctrl-C at the terminal is roshambo's to handle, and stopping the program stops
/// whatever it started too), with the signals roshambo handles or ignores back at their
/// defaults, its standard input and output on pipes, its standard error passed through.
///
/// Invariant: only the program gets the pipes' other ends (each is closed here after the
/// spawn, and none is inherited by another program started meanwhile).
public struct ProgramProcess: Sendable {
  /// The process, which leads its own group (its group's number is the same).
  public let pid: pid_t
  /// The write end of the program's standard input.
  public let input: Int32
  /// The read end of the program's standard output.
  public let output: Int32

  /// What can go wrong starting the program.
  public struct StartFailure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Starts `/bin/sh -c command`.
  public static func spawn(_ command: String) throws -> ProgramProcess {
    // A program that has exited must not take roshambo with it when it is written to.
    signal(SIGPIPE, SIG_IGN)
    var toProgram: [Int32] = [-1, -1]
    var fromProgram: [Int32] = [-1, -1]
    guard pipe(&toProgram) == 0 else {
      throw StartFailure(description: "could not make a pipe: \(String(cString: strerror(errno)))")
    }
    guard pipe(&fromProgram) == 0 else {
      close(toProgram[0])
      close(toProgram[1])
      throw StartFailure(description: "could not make a pipe: \(String(cString: strerror(errno)))")
    }
    // No other program started meanwhile inherits them (this one gets copies as 0 and 1).
    for fd in toProgram + fromProgram { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toProgram[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromProgram[1], 1)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    posix_spawnattr_setpgroup(&attributes, 0)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] {
      sigaddset(&defaults, signal)
    }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unmasked = sigset_t()
    sigemptyset(&unmasked)
    posix_spawnattr_setsigmask(&attributes, &unmasked)
    let words: [String] = ["/bin/sh", "-c", command]
    let arguments = words.map { strdup($0) }
    let environment = ProcessInfo.processInfo.environment.map { strdup("\($0)=\($1)") }
    defer { (arguments + environment).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(
      &pid, "/bin/sh", &actions, &attributes, arguments + [nil], environment + [nil])
    close(toProgram[0])
    close(fromProgram[1])
    guard spawned == 0 else {
      close(toProgram[1])
      close(fromProgram[0])
      throw StartFailure(
        description: "could not start /bin/sh: \(String(cString: strerror(spawned)))")
    }
    return ProgramProcess(pid: pid, input: toProgram[1], output: fromProgram[0])
  }

  /// Waits for the program to exit, on a thread of its own, and returns its wait status
  /// (the process is reaped: it leaves no zombie in its group).
  public func exitStatus() async -> Int32 {
    let pid = self.pid
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        continuation.resume(returning: status)
      }
    }
  }
}
