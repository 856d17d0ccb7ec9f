import Logging
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub
@testable import RoshamboServer

/// The server's settings in the hub's terms: ``HubConfiguration/init(server:hasJournal:sharesNames:logLevel:)``.
@Suite("Server: the hub's configuration from the server's")
struct HubConfigurationMappingTests {
  /// A server configuration with every setting the hub is told away from its default.
  static func server() -> ServerConfiguration {
    var server = ServerConfiguration(
      certificateChainFile: "cert.pem", privateKeyFile: "key.pem", dataDirectory: nil)
    server.journalCompactionInterval = 500
    server.journalRetryMillis = 2_500
    server.challengeLifetimeMillis = 45_000
    server.announceName = "Den"
    server.limits.framesPerSecond = 7
    server.limits.frameBurst = 11
    server.news = { _ in }
    server.ratesSameAddress = true
    server.namesPerIdentity = 3
    server.nameLapseDays = 2
    server.newIdentitiesPerAddress = 4
    server.roomSettings = RoomState.Settings(bestOf: 5)
    server.tournament = .swiss
    server.tournamentSettings = RoomState.Settings(bestOf: 3, fair: true)
    server.tournamentPlayers = 6
    server.tournamentStartMillis = 90_000
    server.tournamentPauseMillis = 4_000
    server.tournamentNextMillis = 120_000
    server.tournamentEntriesPerAddress = 2
    return server
  }

  @Test("every setting the hub is told maps to its field, as it is")
  func everyField() {
    var expected = HubConfiguration(hasJournal: true)
    expected.compactionInterval = 500
    expected.retryMillis = 2_500
    expected.challengeLifetimeMillis = 45_000
    expected.serverName = "Den"
    expected.frameRate = FrameRate(perSecond: 7, burst: 11)
    expected.tellsNews = true
    expected.ratingRule = RatingRule(ratesSameAddress: true)
    expected.namesPerIdentity = 3
    expected.nameLapseMillis = 2 * 86_400_000
    expected.newIdentitiesPerAddress = 4
    expected.sharesNames = true
    expected.logLevel = .notice
    expected.tournament = TournamentPlan(
      kind: .swiss, settings: RoomState.Settings(bestOf: 3, fair: true), players: 6,
      startMillis: 90_000, pauseMillis: 4_000, nextMillis: 120_000, entriesPerAddress: 2)
    let mapped = HubConfiguration(
      server: Self.server(), hasJournal: true, sharesNames: true, logLevel: .notice)
    #expect(mapped == expected)
  }

  @Test("the bounds, and a tournament that names no settings plays the rooms'")
  func bounds() {
    var server = Self.server()
    server.journalCompactionInterval = 0
    server.namesPerIdentity = 0
    server.newIdentitiesPerAddress = -1
    server.tournamentEntriesPerAddress = -3
    server.tournamentSettings = nil
    server.nameLapseDays = 0
    server.news = nil
    let hub = HubConfiguration(
      server: server, hasJournal: false, sharesNames: false, logLevel: .info)
    #expect(!hub.hasJournal && !hub.sharesNames && !hub.tellsNews)
    #expect(hub.compactionInterval == 1)
    #expect(hub.namesPerIdentity == 1)
    #expect(hub.newIdentitiesPerAddress == 0)
    #expect(hub.tournament.entriesPerAddress == 0)
    #expect(hub.tournament.settings == RoomState.Settings(bestOf: 5))
    #expect(hub.nameLapseMillis == nil)
  }

  @Test("the logger's level is the least the hub makes lines for")
  func logLevels() {
    let levels: [(Logger.Level, HubLog.Level)] = [
      (.trace, .debug), (.debug, .debug), (.info, .info), (.notice, .notice),
      (.warning, .error), (.error, .error), (.critical, .critical),
    ]
    for (logger, hub) in levels {
      let mapped = HubConfiguration(
        server: Self.server(), hasJournal: true, sharesNames: false, logLevel: logger)
      #expect(mapped.logLevel == hub, "\(logger)")
    }
  }
}
