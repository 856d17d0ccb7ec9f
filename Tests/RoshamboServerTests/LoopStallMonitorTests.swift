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
    #expect(profile.histogram.counts[0] == 3)  // < 0.1 ms
    #expect(profile.histogram.counts[2] == 1)  // 0.5–1 ms
    #expect(profile.histogram.counts[4] == 1)  // 2–5 ms
    #expect(profile.histogram.counts.last == 1)  // > 100 ms
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

  @Test("commits are profiled by size and time; sealed → sent counts once per action")
  func commits() {
    let monitor = LoopStallMonitor()
    // 9 one-action commits sent within 0.1 ms, then one of 91 actions that waited 30 ms.
    for _ in 0..<9 {
      monitor.recordCommit(
        actions: 1, matches: 0, waitedMicros: 10, commitMicros: 80, sealToSendMicros: 90)
    }
    monitor.recordCommit(
      actions: 91, matches: 10, waitedMicros: 30_000, commitMicros: 500, sealToSendMicros: 31_000)
    var other = LoopStallMonitor.Histogram()
    other.record(20_000)
    let commits = monitor.profile.with(otherJournalWork: other).commits
    #expect(commits.count == 10)
    #expect(commits.actions == 100)
    #expect(commits.matches == 10)
    // By commit, 9 in 10 were quick; by action, 91 in 100 waited behind the slow one.
    #expect(commits.commit.percentile(0.9) == 100)
    #expect(commits.waited.percentile(0.9) == 50)
    #expect(commits.waited.longest == 51_200)
    #expect(commits.sealToSend.total == 100)
    #expect(commits.sealToSend.percentile(0.5) == 51_200)
    #expect(commits.otherWork.longest == 25_600)
    let text = commits.description
    #expect(text.contains("journal commits: 10, 10.0 actions and 1.00 finished matches each"))
    #expect(text.contains("sealed → sent, per action: p50 under 51.20 ms"))
    // A reset forgets them.
    monitor.reset()
    #expect(monitor.profile.commits.count == 0)
  }
}
