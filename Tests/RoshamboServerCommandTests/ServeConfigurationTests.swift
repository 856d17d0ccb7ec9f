import ArgumentParser
import Logging
import ProcessFixtures
import RoshamboGame
import RoshamboServer
import Testing

@testable import roshambo_server

/// `serve`'s flags as the server's configuration: what each flag becomes, and the error a
/// bad combination gives, read off values alone (no socket is bound, no file read).
@Suite("roshambo-server's flags as a configuration", .cpuBound)
struct ServeConfigurationTests {
  func configuration(_ arguments: [String]) throws -> ServerConfiguration {
    try ServeOptions.parse(arguments).configuration()
  }

  /// The message ArgumentParser prints for what `arguments` throw on parsing, or nil.
  func refusal(_ arguments: [String]) -> String? {
    do {
      _ = try configuration(arguments)
      return nil
    } catch {
      return ServeOptions.message(for: error)
    }
  }

  @Test("--tournament round-robin --tournament-players 4 plans a round robin for four")
  func tournamentPlan() throws {
    let planned = try configuration(["--tournament", "round-robin", "--tournament-players", "4"])
    #expect(planned.tournament == .roundRobin)
    #expect(planned.tournamentPlayers == 4)
    #expect(planned.tournamentStartMillis == 60_000)
    #expect(planned.tournamentNextMillis == 60_000)
    let timed = try configuration([
      "--tournament", "swiss", "--tournament-start", "1.5", "--tournament-pause", "0.25",
      "--tournament-next", "off", "--tournament-entries-per-address", "0",
    ])
    #expect(timed.tournament == .swiss)
    #expect(timed.tournamentStartMillis == 1_500)
    #expect(timed.tournamentPauseMillis == 250)
    #expect(timed.tournamentNextMillis == nil)
    #expect(timed.tournamentEntriesPerAddress == 0)
    #expect(try configuration([]).tournament == nil)
  }

  @Test("with no flags, every setting is ServerConfiguration's default")
  func defaults() throws {
    let given = try configuration([])
    let defaults = ServerConfiguration(
      certificateChainFile: "", privateKeyFile: "", dataDirectory: nil)
    #expect(given.host == defaults.host)
    #expect(given.port == defaults.port)
    #expect(given.roomSettings == defaults.roomSettings)
    #expect(given.limits.maxConnections == defaults.limits.maxConnections)
    #expect(given.limits.maxConnectionsPerAddress == defaults.limits.maxConnectionsPerAddress)
    #expect(given.limits.idleTimeoutSeconds == defaults.limits.idleTimeoutSeconds)
    #expect(given.keepMatches == defaults.keepMatches)
    #expect(given.durability == .process && defaults.durability == .process)
    #expect(given.threads == defaults.threads)
    #expect(given.drainLimitOnTerminate == defaults.drainLimitOnTerminate)
    #expect(given.drainLimitOnInterrupt == defaults.drainLimitOnInterrupt)
    #expect(given.certificateChainFile == "certs/server.pem")
    #expect(given.privateKeyFile == "certs/server-key.pem")
    #expect(given.dataDirectory == "data")
    #expect(given.news != nil)
    #expect(given.operationsAddress == nil)
  }

  @Test("rooms, limits, files and the drain are read from their flags")
  func flags() throws {
    let given = try configuration([
      "--host", "127.0.0.1", "--port", "0", "--cert", "a.pem", "--key", "a-key.pem",
      "--data-dir", "party", "--best-of", "5", "--ruleset", "lizardSpock", "--fair",
      "--round-seconds", "2.5", "--grace-seconds", "7", "--max-connections", "9",
      "--max-connections-per-address", "3", "--idle-seconds", "30", "--hello-seconds", "60",
      "--keep-matches", "12", "--durability", "power", "--messages-per-second", "50",
      "--drain-seconds", "1.5", "--metrics-address", "[::1]:9464", "--threads", "2",
      "--allow-tls12", "--name", "Cellar", "--release-name", "ada", "--release-name", "bo",
    ])
    #expect(given.host == "127.0.0.1")
    #expect(given.port == 0)
    #expect(given.certificateChainFile == "a.pem")
    #expect(given.privateKeyFile == "a-key.pem")
    #expect(given.dataDirectory == "party")
    #expect(
      given.roomSettings
        == RoomState.Settings(
          ruleset: .lizardSpock, bestOf: 5, roundMillis: 2_500, graceMillis: 7_000, fair: true))
    #expect(given.limits.maxConnections == 9)
    #expect(given.limits.maxConnectionsPerAddress == 3)
    #expect(given.limits.idleTimeoutSeconds == 30)
    #expect(given.limits.framesPerSecond == 50 && given.limits.frameBurst == 100)
    #expect(given.limits.helloTimeoutSeconds == 60 && given.limits.handshakeTimeoutSeconds == 30)
    #expect(given.keepMatches == 12)
    #expect(given.durability == .power)
    #expect(given.drainLimitOnTerminate == .milliseconds(1_500))
    #expect(given.drainLimitOnInterrupt == .milliseconds(1_500))
    #expect(given.operationsAddress?.host == "::1")
    #expect(given.operationsAddress?.port == 9464)
    #expect(given.threads == 2)
    #expect(given.allowTLS12)
    #expect(given.announceName == "Cellar")
    #expect(given.releasedNames == ["ada", "bo"])
  }

  @Test("--ephemeral keeps no journal and prints no news; --no-announce announces nothing")
  func ephemeralAndQuiet() throws {
    let ephemeral = try configuration(["--ephemeral", "--no-announce"])
    #expect(ephemeral.dataDirectory == nil)
    #expect(ephemeral.news == nil)
    #expect(ephemeral.announceName == nil)
  }

  @Test("--agones talks to the SDK server and announces nothing; --history-url names the database")
  func fleet() throws {
    let fleet = try configuration([
      "--agones", "--name", "Cellar", "--history-url", "postgres://roshambo@db.example/roshambo",
    ])
    #expect(fleet.agonesPort != nil)
    #expect(fleet.announceName == nil)
    #expect(
      fleet.historyAddress
        == (try HistoryAddress(parsing: "postgres://roshambo@db.example/roshambo")))
  }

  @Test("a bad flag, or a bad combination of flags, is refused naming the flag")
  func refusals() {
    #expect(
      refusal(["--ephemeral", "--history-url", "postgres://roshambo@db.example/roshambo"])
        == "--history-url needs a journal (not --ephemeral).")
    #expect(
      refusal(["--history-url", "mysql://db"])?.hasPrefix("--history-url is refused: ") == true)
    #expect(refusal(["--best-of", "4"]) == "--best-of must be an odd number from 1 to 99, not 4.")
    #expect(
      refusal(["--tournament-next", "soon"])
        == "--tournament-next must be 0 to 86400 seconds, or off.")
    #expect(refusal(["--threads", "0"]) == "--threads must be from 1 to 256, not 0.")
    #expect(
      refusal(["--ephemeral", "--durability", "power"])
        == "--durability power needs a journal (not --ephemeral).")
    #expect(refusal(["--ephemeral", "--durability", "process"]) == nil)
    #expect(refusal(["--durability", "disk"])?.contains("one of 'process' and 'power'") == true)
    #expect(refusal(["--tournament", "round-robin", "--tournament-players", "4"]) == nil)
    #expect(
      refusal(["--messages-per-second", "100001"])
        == "--messages-per-second must be from 0 (no limit) to 100000, not 100001.")
  }

  @Test("--messages-per-second 0 lifts the rate limit; by default it is 20 after a burst of 40")
  func messageRate() throws {
    let lifted = try configuration(["--messages-per-second", "0"])
    #expect(lifted.limits.framesPerSecond == .max && lifted.limits.frameBurst == .max)
    let given = try configuration([])
    #expect(given.limits.framesPerSecond == 20 && given.limits.frameBurst == 40)
  }

  @Test("the application holds the configuration and knows which certificates it may make")
  func application() throws {
    let logger = Logger(label: "test")
    let development = try ServeOptions.parse(["--recover"]).application(logger: logger)
    #expect(development.developmentCertificates?.directory == "certs")
    #expect(development.banner.caFile == "certs/ca.pem")
    #expect(development.journalToRecover == "data")
    #expect(!development.stopsWhenStandardInputCloses)
    let own = try ServeOptions.parse(["--cert", "a.pem", "--ephemeral"]).application(logger: logger)
    #expect(own.developmentCertificates == nil)
    #expect(own.banner.caFile == nil)
    #expect(own.journalToRecover == nil)
    #expect(own.stopsWhenStandardInputCloses)
    #expect(own.configuration.certificateChainFile == "a.pem")
    #expect(own.configuration.privateKeyFile == "certs/server-key.pem")
  }
}
