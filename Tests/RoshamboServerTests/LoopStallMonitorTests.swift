import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import RoshamboServer

@Suite("Server: the loop's stall profile")
struct LoopStallMonitorTests {
  @Test("probes are counted by lateness; the longest keep what ran before them")
  func profile() {
    let monitor = LoopStallMonitor()
    for late in [50, 60, 70, 600, 3_000] { monitor.record(lateMicros: late) }
    monitor.measure(.commit) {}
    monitor.record(lateMicros: 200_000)
    let profile = monitor.profile
    #expect(profile.probes == 6)
    #expect(profile.histogram[0] == 3)  // < 0.1 ms
    #expect(profile.histogram[2] == 1)  // 0.5–1 ms
    #expect(profile.histogram[4] == 1)  // 2–5 ms
    #expect(profile.histogram.last == 1)  // > 100 ms
    #expect(profile.percentile(0.5) == 100)
    #expect(profile.percentile(0.99) == Int.max)
    #expect(profile.longest.map(\.lateMicros).prefix(3) == [200_000, 3_000, 600])
    // The commit ran before the longest stall's probe, and only then.
    #expect(profile.longest[0].steps[.commit] != nil)
    #expect(profile.longest[1].steps.isEmpty)
    #expect(profile.description.contains("p50 under 0.1 ms, p99 100 ms or more"))
    #expect(profile.description.contains("longest 200.0 ms"))
  }

  @Test("a step that holds a real loop for 30 ms shows as a stall made of that step")
  func realLoop() throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let bound = try loop.submit { NIOLoopBound(LoopStallMonitor(), eventLoop: loop) }.wait()
    try loop.submit { bound.value.start(on: loop) }.wait()
    // Let a few probes run on time, then hold the loop inside a measured step.
    try loop.scheduleTask(in: .milliseconds(20)) {}.futureResult.wait()
    _ = try loop.submit { bound.value.measure(.commit) { usleep(30_000) } }.wait()
    try loop.scheduleTask(in: .milliseconds(5)) {}.futureResult.wait()
    let profile = try loop.submit {
      bound.value.stop()
      return bound.value.profile
    }.wait()
    let longest = try #require(profile.longest.first)
    #expect(longest.lateMicros >= 29_000)
    #expect((longest.steps[.commit] ?? 0) >= 29_000)
    #expect(profile.probes >= 5)
  }
}
