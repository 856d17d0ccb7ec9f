// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Roshambo",
  platforms: [.macOS(.v14)],
  products: [
    .library(name: "Redux", targets: ["Redux"]),
    .library(name: "ReduxTesting", targets: ["ReduxTesting"]),
  ],
  targets: [
    // A Redux-style store: reducers, middleware, subscriptions. No dependencies.
    .target(name: "Redux"),
    // TestStore: exhaustive state assertions for tests of any reducer.
    .target(name: "ReduxTesting", dependencies: ["Redux"]),
    .testTarget(name: "ReduxTests", dependencies: ["Redux", "ReduxTesting"]),
  ],
  swiftLanguageModes: [.v6]
)
