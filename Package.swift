// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Roshambo",
  platforms: [.macOS(.v14)],
  products: [
    .library(name: "Redux", targets: ["Redux"]),
    .library(name: "ReduxTesting", targets: ["ReduxTesting"]),
    .library(name: "RoshamboGame", targets: ["RoshamboGame"]),
    .library(name: "RoshamboTLS", targets: ["RoshamboTLS"]),
    .library(name: "RoshamboProtocol", targets: ["RoshamboProtocol"]),
    .library(name: "RoshamboServer", targets: ["RoshamboServer"]),
    .library(name: "RoshamboOperations", targets: ["RoshamboOperations"]),
    .library(name: "RoshamboJournal", targets: ["RoshamboJournal"]),
    .library(name: "RoshamboJournalFormat", targets: ["RoshamboJournalFormat"]),
    .library(name: "RoshamboHistory", targets: ["RoshamboHistory"]),
    .executable(name: "roshambo-server", targets: ["roshambo-server"]),
    .library(name: "RoshamboClient", targets: ["RoshamboClient"]),
    .library(name: "RoshamboLoad", targets: ["RoshamboLoad"]),
    .library(name: "RoshamboArena", targets: ["RoshamboArena"]),
    .library(name: "RoshamboBoard", targets: ["RoshamboBoard"]),
    .executable(name: "roshambo", targets: ["roshambo"]),
    .executable(name: "roshambo-simulate", targets: ["roshambo-simulate"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
  ],
  targets: [
    // `--version` names the commit a binary was built from.
    .plugin(
      name: "SourceCommitPlugin", capability: .buildTool(), path: "Sources/SourceCommitPlugin"),
    // A Redux-style store: reducers, middleware, subscriptions. No dependencies.
    .target(name: "Redux"),
    // TestStore: exhaustive state assertions for tests of any reducer.
    .target(name: "ReduxTesting", dependencies: ["Redux"]),
    .testTarget(name: "ReduxTests", dependencies: ["Redux", "ReduxTesting"]),
    // The game as a pure store: rules, rooms, the lobby, per-seat views, screen props.
    .target(name: "RoshamboGame"),
    // Rooms in play and the rules as reducers, shared by the game's and the client's tests.
    .target(
      name: "GameFixtures", dependencies: ["RoshamboGame", "Redux"], path: "Tests/GameFixtures"),
    // A SQLite VFS that keeps writes in memory until they are synced and loses the rest
    // at a simulated power cut, for the journal's durability tests.
    .target(
      name: "PowerCutVFS", path: "Tests/PowerCutVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
    // Blocking work (processes, pipes) and long computations kept off the tests'
    // cooperative pool.
    .target(name: "ProcessFixtures", path: "Tests/ProcessFixtures"),
    .testTarget(
      name: "RoshamboGameTests",
      dependencies: [
        "ProcessFixtures",
        "RoshamboGame", "ReduxTesting", "GameFixtures",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    // The system's OpenSSL 3 (libssl-dev), with shims for what Swift cannot import.
    .systemLibrary(
      name: "COpenSSL", pkgConfig: "openssl",
      providers: [.apt(["libssl-dev", "pkg-config"]), .brew(["openssl@3"])]),
    // SHA-256, secure random bytes and constant-time comparison, from the system's OpenSSL:
    // what the protocol (commitments), the server (tokens at rest) and the client share.
    .target(name: "RoshamboCrypto", dependencies: ["COpenSSL"]),
    // TLS over OpenSSL as a SwiftNIO channel handler; certificates and trust.
    .target(
      name: "RoshamboTLS",
      dependencies: ["COpenSSL", .product(name: "NIOCore", package: "swift-nio")]),
    .testTarget(
      name: "RoshamboTLSTests",
      dependencies: [
        "RoshamboTLS", "ProcessFixtures",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // JSON read and written straight from and to bytes: the wire's messages and the
    // journal's rows.
    .target(name: "RoshamboJSON"),
    // The wire contract: messages, frames, protocol version.
    .target(
      name: "RoshamboProtocol",
      dependencies: [
        "RoshamboGame", "RoshamboCrypto", "RoshamboJSON",
        .product(name: "NIOCore", package: "swift-nio"),
      ]),
    // The LAN's multicast sockets: which interfaces announcements travel on.
    .target(
      name: "RoshamboDiscovery",
      dependencies: ["RoshamboProtocol", .product(name: "NIOCore", package: "swift-nio")]),
    .testTarget(
      name: "RoshamboProtocolTests",
      dependencies: [
        "ProcessFixtures",
        "RoshamboProtocol", "RoshamboGame", "RoshamboJSON", "GameFixtures",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    // The hub as one value machine: inputs in, outputs out; no NIO, no clock, no disk.
    .target(name: "RoshamboHub", dependencies: ["RoshamboGame", "RoshamboProtocol"]),
    .testTarget(
      name: "RoshamboHubTests",
      dependencies: [
        "ProcessFixtures",
        "RoshamboHub", "RoshamboGame", "RoshamboProtocol", "GameFixtures",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    // A connection's decisions and what waits for a connection that does not read, as
    // values on a millisecond clock: no NIO, no socket.
    .target(name: "RoshamboConnections", dependencies: ["RoshamboProtocol"]),
    // The authoritative server's core: connections, the hub, broadcast, timers, the LAN
    // announcer, its parts as services of one group, and what it counts (through
    // swift-metrics' API alone). It links no database, no HTTP and no Prometheus: what it
    // keeps comes through a `ServerStorage` (the journal below), so `roshambo play
    // --vs-bot` runs it in the player's program.
    .target(
      name: "RoshamboServer",
      dependencies: [
        "RoshamboHub", "RoshamboConnections", "RoshamboGame", "RoshamboProtocol", "RoshamboTLS",
        "RoshamboCrypto", "RoshamboJSON", "RoshamboDiscovery",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
      ]),
    // What a host watches and runs a server through: metrics in Prometheus' format, the
    // operations endpoint (`/metrics`, `/livez`, `/readyz`), `status`'s reading of it,
    // and the Agones link.
    .target(
      name: "RoshamboOperations",
      dependencies: [
        "RoshamboServer", "RoshamboProtocol", "RoshamboJSON",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ]),
    // The party's board (`--board`): a read-only web page over plain HTTP/1.1 (NIOHTTP1)
    // with the lobby's public view as Server-Sent Events; its files are in the binary.
    .target(
      name: "RoshamboBoard",
      dependencies: [
        "RoshamboServer", "RoshamboHub", "RoshamboProtocol", "RoshamboGame", "RoshamboJSON",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    // The journal's rows and snapshots as bytes, both ways: what the journal writes and
    // replays, without SQLite.
    .target(
      name: "RoshamboJournalFormat",
      dependencies: ["RoshamboGame", "RoshamboJSON", "RoshamboProtocol"]),
    // The journal: every accepted action made durable in SQLite before anyone sees it,
    // snapshots, kept matches and standings.
    .target(
      name: "RoshamboJournal",
      dependencies: [
        "RoshamboServer", "RoshamboJournalFormat", "RoshamboHub", "RoshamboGame", "RoshamboProtocol",
        "RoshamboJSON",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    // The fleet's shared history in PostgreSQL, and the shipper that feeds it from the
    // journal's outbox.
    .target(
      name: "RoshamboHistory",
      dependencies: [
        "RoshamboServer", "RoshamboJournal", "RoshamboHub", "RoshamboGame", "RoshamboProtocol", "RoshamboCrypto",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    // The exit statuses both executables use (sysexits(3)); only executables exit.
    .target(name: "Sysexits"),
    .executableTarget(
      name: "roshambo-server",
      dependencies: [
        "RoshamboServer", "RoshamboOperations", "RoshamboJournal", "RoshamboHistory", "Sysexits",
        "RoshamboTLS", "RoshamboGame", "RoshamboProtocol", "RoshamboBoard",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ],
      plugins: ["SourceCommitPlugin"]),
    // roshambo-server's flags, configuration and banner, as values: no socket, no disk.
    .testTarget(
      name: "RoshamboServerCommandTests",
      dependencies: [
        "ProcessFixtures",
        "roshambo-server", "RoshamboServer", "RoshamboGame",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "RoshamboServerTests",
      dependencies: [
        "RoshamboServer", "RoshamboHub", "RoshamboConnections", "RoshamboOperations", "RoshamboJournal",
        "RoshamboJournalFormat", "RoshamboHistory", "RoshamboProtocol", "RoshamboTLS", "RoshamboGame", "RoshamboClient",
        "RoshamboDiscovery", "ProcessFixtures", "PowerCutVFS", "GameFixtures", "ClientFixtures", "RoshamboBoard",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    // The player as one value machine: the session (hello, welcome, resume, reconnect,
    // keepalive, pacing) and the match's reducer; no NIO's sockets, no clock, no disk.
    .target(name: "RoshamboPlayer", dependencies: ["Redux", "RoshamboGame", "RoshamboProtocol"]),
    .testTarget(
      name: "RoshamboPlayerTests",
      dependencies: ["RoshamboPlayer", "RoshamboGame", "RoshamboProtocol"]),
    // The client: connection, replica store, bots, terminal screen, and what each
    // `roshambo` command runs once its flags are parsed.
    .target(
      name: "RoshamboClient",
      dependencies: [
        "RoshamboPlayer", "Redux", "RoshamboGame", "RoshamboProtocol", "RoshamboTLS", "RoshamboCrypto",
        "RoshamboDiscovery", "RoshamboJSON", "Sysexits",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ]),
    // An arena's statistics as values: win rates with intervals, the sequential test that
    // decides a pairing, Bradley–Terry ratings, the schedule, the result and its report.
    .target(name: "RoshamboArena", dependencies: ["RoshamboGame", "RoshamboJSON"]),
    .testTarget(
      name: "RoshamboArenaTests",
      dependencies: [
        "ProcessFixtures",
        "RoshamboArena", "RoshamboClient", "RoshamboGame",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    // Many bot pairs in one process, for loading a server and measuring it, and the
    // arena's tables of bots on a server (the server's core, for an arena's own server);
    // the runs of `roshambo load` and `roshambo arena`.
    .target(
      name: "RoshamboLoad",
      dependencies: [
        "RoshamboClient", "RoshamboArena", "RoshamboServer", "RoshamboGame", "RoshamboProtocol",
        "RoshamboTLS", "RoshamboJSON", "Sysexits",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    .executableTarget(
      name: "roshambo",
      dependencies: [
        "RoshamboClient", "RoshamboServer", "RoshamboLoad", "RoshamboArena", "RoshamboTLS",
        "RoshamboGame", "RoshamboProtocol", "Sysexits",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      plugins: ["SourceCommitPlugin"]),
    // A follower of the lobby on a real connection, made of the real client's driver, for
    // the tests that watch or answer the lobby while they run servers and programs.
    .target(
      name: "ClientFixtures",
      dependencies: ["RoshamboClient", "RoshamboGame", "RoshamboProtocol"],
      path: "Tests/ClientFixtures"),
    .testTarget(
      name: "RoshamboClientTests",
      dependencies: [
        "RoshamboClient", "RoshamboLoad", "RoshamboArena", "RoshamboServer", "RoshamboJournal",
        "RoshamboGame", "RoshamboProtocol", "RoshamboTLS",
        "ReduxTesting", "GameFixtures", "ProcessFixtures", "ClientFixtures",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // A whole LAN party in one thread on a virtual clock: the real hub, a journal under
    // the real one's contract, people made of the real client's parts, faults; the
    // invariants after every step.
    .target(
      name: "RoshamboSimulation",
      dependencies: [
        "RoshamboHub", "RoshamboConnections", "RoshamboJournalFormat", "RoshamboGame",
        "RoshamboProtocol", "RoshamboClient",
      ]),
    .executableTarget(
      name: "roshambo-simulate",
      dependencies: [
        "RoshamboSimulation", "Sysexits",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .testTarget(
      name: "RoshamboSimulationTests",
      dependencies: [
        "ProcessFixtures", "RoshamboSimulation", "RoshamboHub", "RoshamboGame", "RoshamboProtocol",
      ]),
  ],
  swiftLanguageModes: [.v6]
)
