import RoshamboJournal
import RoshamboServer

extension JournalStorage {
  /// The journal, shipping finished matches to the shared history (PostgreSQL) when the
  /// configuration names one: what `roshambo-server` keeps its games in.
  public static let shippingHistory = JournalStorage { address, journal, context in
    HistoryShipper(
      history: SharedHistory(address: address, logger: context.logger), journal: journal,
      context: context)
  }
}
