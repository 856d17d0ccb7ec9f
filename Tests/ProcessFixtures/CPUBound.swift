import Dispatch
import Testing

/// A trait for tests that compute for seconds (simulated evenings, thousands of random
/// games, every mutation of a frame): they run on one thread of their own, one after
/// another, instead of on the tests' cooperative pool.
///
/// The pool has one thread per core, two on the machines the suite runs on. Two such
/// tests running there at once took it whole for half a minute, and the tests waiting
/// on real time (a server that closes a connection nobody reads for 30 s, a seat held
/// for 30 s) then failed though nothing was wrong. On their own thread they share the
/// cores with everything else instead of taking the pool.
///
/// Invariant: at most one thread runs the marked tests, so they never hold more than one
/// core between them.
public struct CPUBound: TestTrait, SuiteTrait, TestScoping {
  public var isRecursive: Bool { true }

  /// Whether the caller runs on the CPU-bound tests' thread.
  public static var isCurrent: Bool { SerialQueueExecutor.cpuBoundTests.isCurrent }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(SerialQueueExecutor.cpuBoundTests) {
      try await function()
    }
  }
}

extension Trait where Self == CPUBound {
  /// Runs the test (or every test of the suite) on the CPU-bound tests' own thread.
  public static var cpuBound: Self { CPUBound() }
}

/// A task executor that runs its jobs one at a time on a serial dispatch queue, whose
/// thread is not one of the cooperative pool's.
///
/// Invariant: jobs run in the order they were enqueued, never two at once.
final class SerialQueueExecutor: TaskExecutor {
  static let cpuBoundTests = SerialQueueExecutor(label: "roshambo.tests.cpu-bound")

  private let queue: DispatchQueue
  private let key = DispatchSpecificKey<Bool>()

  init(label: String) {
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: true)
  }

  /// Whether the caller runs on this executor's queue.
  var isCurrent: Bool { DispatchQueue.getSpecific(key: key) ?? false }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
