import ProcessFixtures
import Testing

@Suite("Tests marked CPU-bound run off the cooperative pool", .cpuBound)
struct CPUBoundTraitTests {
  @Test("a test of a CPU-bound suite runs on their own thread, before and after it waits")
  func suiteTestOffThePool() async throws {
    #expect(CPUBound.isCurrent)
    try await Task.sleep(for: .milliseconds(1))
    #expect(CPUBound.isCurrent)
  }

  @Test("a synchronous test of a CPU-bound suite runs there too")
  func synchronousTestOffThePool() {
    #expect(CPUBound.isCurrent)
  }
}

@Test("an unmarked test runs on the cooperative pool")
func unmarkedTestOnThePool() async {
  #expect(!CPUBound.isCurrent)
}
