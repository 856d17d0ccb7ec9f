// Measures ns per dispatch of `Redux.Store` beside `HandWrittenStore` in the same run,
// interleaving the two so that drift in the machine's speed hits both alike.
import Redux

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct Tally: Equatable {
  var count = 0
}

struct Table: Equatable {
  var entries: [Int: Int] = [:]
}

/// A sink the optimizer cannot see through, so no measured work is removed.
nonisolated(unsafe) var checksum = 0

@inline(never)
func consume(_ value: Int) {
  checksum &+= value
}

func nowNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Runs `body(iterations)` `rounds` times and returns the median ns per iteration.
func measure(rounds: Int, iterations: Int, _ body: (Int) -> Void) -> Double {
  body(iterations / 10)  // warm up
  var samples: [Double] = []
  for _ in 0..<rounds {
    let start = nowNanoseconds()
    body(iterations)
    samples.append(Double(nowNanoseconds() - start) / Double(iterations))
  }
  samples.sort()
  return samples[samples.count / 2]
}

struct Row {
  var name: String
  var ours: Double
  var baseline: Double
  var ratio: Double { ours / baseline }
}

let tallyReducer = Reduce<Tally, Int> { state, action in state.count &+= action }
let tableReducer = Reduce<Table, Int> { state, key in state.entries[key, default: 0] &+= 1 }

@MainActor
func subscriberRow(_ subscribers: Int, iterations: Int) -> Row {
  let ours = Store(initialState: Tally(), reducer: tallyReducer)
  var tokens: [Subscription] = []
  for _ in 0..<subscribers {
    tokens.append(ours.subscribe { consume($0.count) })
  }
  let hand = HandWrittenStore(state: Tally(), reducer: tallyReducer.reduce(into:action:))
  for _ in 0..<subscribers {
    hand.subscribers.append { consume($0.count) }
  }
  var oursNs: [Double] = []
  var handNs: [Double] = []
  for _ in 0..<5 {
    oursNs.append(
      measure(rounds: 3, iterations: iterations) { n in
        for i in 0..<n { ours.dispatch(i & 1) }
      })
    handNs.append(
      measure(rounds: 3, iterations: iterations) { n in
        for i in 0..<n { hand.dispatch(i & 1) }
      })
  }
  withExtendedLifetime(tokens) {}
  return Row(
    name: "\(subscribers) subscriber\(subscribers == 1 ? "" : "s")",
    ours: oursNs.sorted()[2], baseline: handNs.sorted()[2])
}

@MainActor
func tableRow(_ size: Int, iterations: Int) -> Row {
  var initial = Table()
  for key in 0..<size { initial.entries[key] = key }
  let ours = Store(initialState: initial, reducer: tableReducer)
  let token = ours.subscribe { consume($0.entries.count) }
  let hand = HandWrittenStore(state: initial, reducer: tableReducer.reduce(into:action:))
  hand.subscribers.append { consume($0.entries.count) }
  initial = Table()  // drop the extra reference so both stores mutate in place
  var oursNs: [Double] = []
  var handNs: [Double] = []
  for _ in 0..<5 {
    oursNs.append(
      measure(rounds: 3, iterations: iterations) { n in
        for i in 0..<n { ours.dispatch((i &* 7919) % size) }
      })
    handNs.append(
      measure(rounds: 3, iterations: iterations) { n in
        for i in 0..<n { hand.dispatch((i &* 7919) % size) }
      })
  }
  withExtendedLifetime(token) {}
  return Row(
    name: "\(size) entries", ours: oursNs.sorted()[2], baseline: handNs.sorted()[2])
}

func format(_ value: Double) -> String {
  let scaled = (value * 10).rounded() / 10
  return String(describing: scaled)
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func printTable(_ title: String, _ rows: [Row]) {
  print(title)
  print(pad("case", 18) + pad("Store ns", 12) + pad("hand-written ns", 18) + "ratio")
  for row in rows {
    print(
      pad(row.name, 18) + pad(format(row.ours), 12) + pad(format(row.baseline), 18)
        + String(format(row.ratio)) + "x")
  }
  print("")
}

let quick = CommandLine.arguments.contains("--quick")
let scale = quick ? 10 : 1

let subscriberRows = [0, 1, 100].map { count in
  subscriberRow(count, iterations: (count == 100 ? 200_000 : 2_000_000) / scale)
}
printTable("ns per dispatch by subscriber count (target: ratio <= 1.5)", subscriberRows)

let tableRows = [10, 1_000, 10_000, 100_000].map { size in
  tableRow(size, iterations: 1_000_000 / scale)
}
printTable("ns per dispatch by state size, one entry changed (target: ratio <= 1.5)", tableRows)

let flatness = tableRows.last!.ours / tableRows.first!.ours
print(
  "state-size flatness: 100,000 entries cost \(format(flatness))x what 10 entries cost (target <= 2)"
)
let allWithin = (subscriberRows + tableRows).allSatisfy { $0.ratio <= 1.5 }
print("targets met: \(allWithin && flatness <= 2 ? "yes" : "NO")")
print("(checksum \(checksum))")
