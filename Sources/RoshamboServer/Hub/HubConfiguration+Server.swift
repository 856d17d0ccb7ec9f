import Logging
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

extension HubConfiguration {
  /// What the hub of a server run with `server` is told at start: the server's settings
  /// in the hub's terms (bounds applied: a fold at least every action, no negative
  /// limit), with whether a journal keeps what is accepted, whether the server shares a
  /// fleet's name book, and the least level its logger writes.
  init(server: ServerConfiguration, hasJournal: Bool, sharesNames: Bool, logLevel: Logger.Level) {
    self.init(hasJournal: hasJournal)
    compactionInterval = max(1, server.journalCompactionInterval)
    retryMillis = server.journalRetryMillis
    challengeLifetimeMillis = server.challengeLifetimeMillis
    serverName = server.announceName
    frameRate = FrameRate(
      perSecond: server.limits.framesPerSecond, burst: server.limits.frameBurst)
    tellsNews = server.news != nil
    ratingRule = RatingRule(ratesSameAddress: server.ratesSameAddress)
    namesPerIdentity = max(1, server.namesPerIdentity)
    nameLapseMillis = server.nameLapseMillis
    newIdentitiesPerAddress = max(0, server.newIdentitiesPerAddress)
    self.sharesNames = sharesNames
    feedsBoard = server.feedsBoard
    self.logLevel =
      switch logLevel {
      case .trace, .debug: .debug
      case .info: .info
      case .notice: .notice
      case .warning, .error: .error
      case .critical: .critical
      }
    tournament = TournamentPlan(
      kind: server.tournament,
      settings: server.tournamentSettings ?? server.roomSettings,
      players: server.tournamentPlayers,
      startMillis: server.tournamentStartMillis,
      pauseMillis: server.tournamentPauseMillis,
      nextMillis: server.tournamentNextMillis,
      entriesPerAddress: max(0, server.tournamentEntriesPerAddress))
  }
}
