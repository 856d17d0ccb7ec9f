import ProcessFixtures
import PropertyBased
import RoshamboGame
import Testing

@Suite("The smallest of a sequence", .cpuBound)
struct SmallestTests {
  @Test("the k smallest, in order, are what sorting everything and cutting gives")
  func likeSorting() async {
    await propertyCheck(
      count: 300, input: Gen.int(in: 0...200), Gen.int(in: -50...50).array(of: 0...300)
    ) { count, numbers in
      // Ties kept in arrival order, as a stable sort would: compare by value only, and
      // check the values and that equal values keep their order.
      let tagged = numbers.enumerated().map { (value: $0.element, at: $0.offset) }
      let smallest = tagged.smallest(count) { $0.value < $1.value }
      let expected = tagged.sorted { ($0.value, $0.at) < ($1.value, $1.at) }.prefix(count)
      #expect(smallest.map(\.value) == expected.map(\.value))
      #expect(smallest.count == min(count, numbers.count))
    }
  }

  @Test("none asked, or none there")
  func edges() {
    #expect([3, 1, 2].smallest(0, by: <) == [])
    #expect([Int]().smallest(5, by: <) == [])
    #expect([3, 1, 2].smallest(5, by: <) == [1, 2, 3])
  }
}
