import RoshamboClient
import Testing

/// Where `--vs-bot` builds the server it needs when run from a clone.
@Suite("A clone's build")
struct CloneBuildTests {
  let manifest = "let package = Package(\n  name: \"Roshambo\",\n"

  func files(_ paths: [String: String]) -> (String) -> String? { { paths[$0] } }

  @Test("the default scratch folder, a named one, and a release build are found")
  func found() {
    let clone = files([
      "/src/rsb/.build/workspace-state.json": "{}", "/src/rsb/Package.swift": manifest,
    ])
    #expect(
      CloneBuild.locate(
        executable: "/src/rsb/.build/x86_64-unknown-linux-gnu/debug/roshambo",
        startedIn: "/home/me", contents: clone)
        == CloneBuild(scratch: "/src/rsb/.build", configuration: "debug", package: "/src/rsb"))
    #expect(
      CloneBuild.locate(
        executable: "/src/rsb/.build/x86_64-unknown-linux-gnu/release/roshambo",
        startedIn: "/", contents: clone)?.configuration == "release")
    // `swift run --scratch-path /tmp/b`: the package is where it was started.
    let named = files(["/tmp/b/workspace-state.json": "{}", "/src/rsb/Package.swift": manifest])
    #expect(
      CloneBuild.locate(
        executable: "/tmp/b/aarch64-unknown-linux-gnu/debug/roshambo", startedIn: "/src/rsb",
        contents: named)
        == CloneBuild(scratch: "/tmp/b", configuration: "debug", package: "/src/rsb"))
  }

  @Test("an installed program, another package, or no scratch folder is not a clone")
  func notFound() {
    let clone = files([
      "/src/rsb/.build/workspace-state.json": "{}", "/src/rsb/Package.swift": manifest,
    ])
    #expect(
      CloneBuild.locate(executable: "/usr/local/bin/roshambo", startedIn: "/", contents: clone)
        == nil)
    #expect(
      CloneBuild.locate(
        executable: "/opt/dist/roshambo-1.2/roshambo", startedIn: "/src/rsb", contents: clone)
        == nil)
    let other = files([
      "/src/x/.build/workspace-state.json": "{}", "/src/x/Package.swift": "name: \"Other\"",
    ])
    #expect(
      CloneBuild.locate(
        executable: "/src/x/.build/x86_64-unknown-linux-gnu/debug/roshambo", startedIn: "/src/x",
        contents: other) == nil)
    let noState = files(["/src/rsb/Package.swift": manifest])
    #expect(
      CloneBuild.locate(
        executable: "/src/rsb/.build/x86_64-unknown-linux-gnu/debug/roshambo",
        startedIn: "/src/rsb", contents: noState) == nil)
  }
}
