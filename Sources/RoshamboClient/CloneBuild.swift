import Foundation

/// The SwiftPM build a program of this package was built by, when it runs from a clone
/// (`swift run roshambo …`): where to build a sibling product it needs.
///
/// Invariant: found only for an executable at `SCRATCH/TRIPLE/CONFIG/NAME` whose scratch
/// folder holds `workspace-state.json` and whose package folder holds the manifest of the
/// package named Roshambo; anything else is not a clone of this package.
public struct CloneBuild: Equatable, Sendable {
  /// The scratch folder (`.build`, or what `--scratch-path` named).
  public var scratch: String
  /// `debug` or `release`.
  public var configuration: String
  /// The folder holding `Package.swift`.
  public var package: String

  public init(scratch: String, configuration: String, package: String) {
    self.scratch = scratch
    self.configuration = configuration
    self.package = package
  }

  /// The clone's build `executable` belongs to, if any. The package folder is the scratch
  /// folder's parent (the default `.build`) or `directory`, where the program was started
  /// (`swift run` runs from it); `contents` reads a file.
  public static func locate(
    executable: String, startedIn directory: String,
    contents: (String) -> String? = { try? String(contentsOfFile: $0, encoding: .utf8) }
  ) -> CloneBuild? {
    let configurationFolder = URL(fileURLWithPath: executable).deletingLastPathComponent()
    let configuration = configurationFolder.lastPathComponent
    guard ["debug", "release"].contains(configuration) else { return nil }
    let scratch = configurationFolder.deletingLastPathComponent().deletingLastPathComponent()
    guard contents(scratch.appendingPathComponent("workspace-state.json").path) != nil else {
      return nil
    }
    for root in [scratch.deletingLastPathComponent().path, directory] {
      let manifest = contents(root + "/Package.swift") ?? ""
      if manifest.contains("name: \"Roshambo\"") {
        return CloneBuild(scratch: scratch.path, configuration: configuration, package: root)
      }
    }
    return nil
  }
}
