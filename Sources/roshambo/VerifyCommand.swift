import ArgumentParser
import RoshamboClient

struct Verify: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check a match record on its own, trusting nobody (the host included).",
    discussion: """
      Checks, from the record alone: each fair round's revealed weapon and nonce against \
      the commitment made before (SHA-256, as docs/MATCH-RECORD.md lays out), each \
      round's winner against the ruleset, the scores against the rounds and the winner \
      against the scores. An ordinary (not fair) match can only be found consistent: \
      its weapons are the host's word. With --compare, also says where two records of \
      the same match differ (your own, saved with --save-record, and the server's).

      Exit status: 0 the record holds (and agrees with --compare's); 65 it does not, or \
      is not a record; 66 no such file.
      """)

  @Argument(help: ArgumentHelp("The record file (- for standard input).", valueName: "file"))
  var file: String

  @Option(
    help: ArgumentHelp("Another record of the same match to compare with.", valueName: "file"))
  var compare: String?

  func run() async throws {
    try await RecordCheck(file: file, compare: compare).run()
  }
}
