// swift-tools-version: 6.1
// Benchmarks live in their own package so that `swift test` and CI never build them.
// Run from this folder: `swift run -c release redux-bench`.
import PackageDescription

let package = Package(
  name: "RoshamboBenchmarks",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(name: "Roshambo", path: ".."),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // The TLS a Swift developer would reach for, as the baseline of `tls-bench` (never a
    // dependency of the product).
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
  ],
  targets: [
    .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
    // A SQLite VFS that makes the disk slow on purpose (for the tail-latency runs).
    .target(
      name: "SlowDisk", path: "Sources/SlowDisk", linkerSettings: [.linkedLibrary("sqlite3")]),
    .executableTarget(
      name: "redux-bench",
      dependencies: [.product(name: "Redux", package: "Roshambo")],
      path: "Sources/ReduxBenchmark"
    ),
    .executableTarget(
      name: "tls-bench",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "RoshamboTLS", package: "Roshambo"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Sources/TLSBenchmark"
    ),
    .executableTarget(
      name: "server-bench",
      dependencies: [
        "BenchmarkSupport", "SlowDisk",
        .product(name: "RoshamboServer", package: "Roshambo"),
        .product(name: "RoshamboBoard", package: "Roshambo"),
        .product(name: "RoshamboOperations", package: "Roshambo"),
        .product(name: "RoshamboHistory", package: "Roshambo"),
        .product(name: "RoshamboJournal", package: "Roshambo"),
        .product(name: "RoshamboClient", package: "Roshambo"),
        .product(name: "RoshamboLoad", package: "Roshambo"),
        .product(name: "RoshamboArena", package: "Roshambo"),
        .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboTLS", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      path: "Sources/ServerBenchmark"
    ),
  ],
  swiftLanguageModes: [.v6]
)
