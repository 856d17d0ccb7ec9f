// swift-tools-version: 6.1
// libFuzzer targets, one per input surface. Their own package, so `swift build` and
// `swift test` of the product never build them; `scripts/fuzz.sh` builds them with
// coverage and AddressSanitizer and runs them.
import PackageDescription

let nio: [Target.Dependency] = [
  .product(name: "NIOCore", package: "swift-nio"),
  .product(name: "NIOEmbedded", package: "swift-nio"),
]

let package = Package(
  name: "RoshamboFuzz",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(name: "Roshambo", path: ".."),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
  ],
  targets: [
    // libFuzzer's driver; frames cut from a byte stream as a connection cuts them; raw
    // bytes fed to a TLS handler.
    .target(
      name: "FuzzDriver",
      dependencies: [
        .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboTLS", package: "Roshambo"),
      ] + nio),
    .executableTarget(
      name: "fuzz-server-frames",
      dependencies: [
        "FuzzDriver", .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
      ],
      path: "Sources/ServerFramesFuzz"),
    .executableTarget(
      name: "fuzz-client-frames",
      dependencies: [
        "FuzzDriver", .product(name: "RoshamboClient", package: "Roshambo"),
        .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
      ],
      path: "Sources/ClientFramesFuzz"),
    .executableTarget(
      name: "fuzz-tls-server",
      dependencies: ["FuzzDriver"], path: "Sources/TLSServerFuzz"),
    .executableTarget(
      name: "fuzz-tls-client",
      dependencies: ["FuzzDriver"], path: "Sources/TLSClientFuzz"),
    .executableTarget(
      name: "fuzz-journal",
      dependencies: [
        "FuzzDriver", .product(name: "RoshamboJournalFormat", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
        .product(name: "RoshamboProtocol", package: "Roshambo"),
      ],
      path: "Sources/JournalFuzz"),
    .executableTarget(
      name: "fuzz-announcement",
      dependencies: [
        "FuzzDriver", .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboClient", package: "Roshambo"),
      ],
      path: "Sources/AnnouncementFuzz"),
    .executableTarget(
      name: "fuzz-record",
      dependencies: [
        "FuzzDriver", .product(name: "RoshamboClient", package: "Roshambo"),
        .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
      ],
      path: "Sources/RecordFuzz"),
    .executableTarget(
      name: "fuzz-client-identity",
      dependencies: [
        "FuzzDriver", .product(name: "RoshamboTLS", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
      ],
      path: "Sources/ClientIdentityFuzz"),
    // Writes the seed corpora in Corpus/ (run by hand when the protocol changes).
    .executableTarget(
      name: "make-seeds",
      dependencies: [
        .product(name: "RoshamboServer", package: "Roshambo"),
        .product(name: "RoshamboJournalFormat", package: "Roshambo"),
        .product(name: "RoshamboProtocol", package: "Roshambo"),
        .product(name: "RoshamboGame", package: "Roshambo"),
        .product(name: "RoshamboTLS", package: "Roshambo"),
      ] + nio,
      path: "Sources/SeedCorpus"),
  ],
  swiftLanguageModes: [.v6]
)
