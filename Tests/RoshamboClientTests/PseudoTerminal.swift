import Foundation
import NIOConcurrencyHelpers
import ProcessFixtures
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A pseudo-terminal (80×24) for running the real executable as a person's shell would:
/// its standard input, output and error are the terminal's side, and everything it draws
/// is read from the other side.
///
/// Invariant: the test keeps the terminal side open until the process has exited, so its
/// settings can be read afterwards.
final class PseudoTerminal: Sendable {
  let controller: Int32
  let terminal: Int32
  private let output = NIOLockedValueBox<[UInt8]>([])

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  init() throws {
    // /dev/ptmx with the ioctls posix_openpt, unlockpt and ptsname use (Linux; Swift does
    // not import those functions or the _IOW/_IOR macros: TIOCSPTLCK and TIOCGPTN).
    let TIOCSPTLCK: UInt = 0x4004_5431
    let TIOCGPTN: UInt = 0x8004_5430
    controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard controller >= 0, ioctl(controller, TIOCSPTLCK, &unlock) == 0,
      ioctl(controller, TIOCGPTN, &number) == 0
    else { throw Failure(description: "cannot open a pseudo-terminal: errno \(errno)") }
    terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard terminal >= 0 else { throw Failure(description: "cannot open /dev/pts/\(number)") }
    var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(terminal, UInt(TIOCSWINSZ), &size)
  }

  deinit {
    close(controller)
    close(terminal)
  }

  /// Whether the terminal reads lines with echo (as a shell leaves it), not raw keys.
  var isCooked: Bool {
    var settings = termios()
    tcgetattr(terminal, &settings)
    return settings.c_lflag & tcflag_t(ECHO) != 0 && settings.c_lflag & tcflag_t(ICANON) != 0
  }

  /// Runs `executable` on this terminal until it exits; returns its status and what it wrote.
  /// The waiting blocks a thread of its own (see `blocking`).
  func run(_ executable: String, _ arguments: [String]) async throws -> (
    status: Int32, bytes: [UInt8]
  ) {
    try await blocking { try self.runBlocking(executable, arguments) }
  }

  private func runBlocking(_ executable: String, _ arguments: [String]) throws -> (
    status: Int32, bytes: [UInt8]
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let handle = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
    process.standardInput = handle
    process.standardOutput = handle
    process.standardError = handle
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = "xterm-256color"
    process.environment = environment
    let done = Atomic<Bool>(false)
    let drained = DispatchSemaphore(value: 0)
    let reader = Thread { [self] in
      defer { drained.signal() }
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, 50)
        if ready > 0 {
          let count = read(controller, &chunk, chunk.count)
          if count > 0 {
            output.withLockedValue { $0 += chunk[0..<count] }
            continue
          }
        }
        if done.load(ordering: .acquiring) && ready <= 0 { return }
      }
    }
    reader.start()
    try process.run()
    process.waitUntilExit()
    done.store(true, ordering: .releasing)
    drained.wait()
    return (process.terminationStatus, output.withLockedValue { $0 })
  }
}
