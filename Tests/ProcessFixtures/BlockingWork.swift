import Foundation

/// The result of `work`, run on a thread of its own.
///
/// The tests' tasks share the cooperative pool, which has one thread per core: two on
/// the machines the suite runs on. A test that blocks one of them (waiting for a
/// process, reading a pipe to its end, running `initdb`) takes half of every other
/// test's time away, and the tests that wait on real time (a hello within 10 s, a seat
/// held for 30 s) then miss their deadlines. Blocking work goes here instead.
public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
  }
}

/// ``blocking(_:)`` for work that cannot throw.
public func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: work()) }
  }
}

/// Waits for `process` to end, at most `seconds` (then it is ended, and its status says
/// so), reading everything it writes to `pipe`; returns its exit status and that text.
/// The waiting happens on a thread of its own (see ``blocking(_:)``).
public func awaitExit(_ process: Process, _ pipe: Pipe, seconds: Double = 120) async -> (
  Int32, String
) {
  await blocking {
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
    let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    watchdog.cancel()
    return (process.terminationStatus, printed)
  }
}
