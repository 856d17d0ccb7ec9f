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
  ],
  targets: [
    .executableTarget(
      name: "redux-bench",
      dependencies: [.product(name: "Redux", package: "Roshambo")],
      path: "Sources/ReduxBenchmark"
    ),
    .executableTarget(
      name: "tls-bench",
      dependencies: [
        .product(name: "RoshamboTLS", package: "Roshambo"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ],
      path: "Sources/TLSBenchmark"
    ),
  ],
  swiftLanguageModes: [.v6]
)
