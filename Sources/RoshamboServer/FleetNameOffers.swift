import NIOConcurrencyHelpers
import RoshamboGame

/// What the hub offered the fleet's name book (``NameOffer``s), waiting for the history
/// shipper to take them to PostgreSQL: the hub's loop appends, the shipper's task takes.
///
/// Invariant: offers come out in the order they went in, and at most ``bound`` wait (the
/// oldest go first past it: every start offers all the server's names again).
package final class FleetNameOffers: Sendable {
  package static let bound = 100_000
  private let waiting = NIOLockedValueBox<[NameOffer]>([])

  package init() {}

  package func append(_ offers: [NameOffer]) {
    waiting.withLockedValue { waiting in
      waiting += offers
      if waiting.count > Self.bound { waiting.removeFirst(waiting.count - Self.bound) }
    }
  }

  /// Whether any offer waits.
  package var isWaiting: Bool { waiting.withLockedValue { !$0.isEmpty } }

  /// Everything waiting, in order; nothing waits after.
  package func take() -> [NameOffer] {
    waiting.withLockedValue { waiting in
      defer { waiting.removeAll() }
      return waiting
    }
  }

  /// `offers`, taken and not delivered, go back before what came since.
  package func putBack(_ offers: [NameOffer]) {
    waiting.withLockedValue { waiting in
      waiting = offers + waiting
      if waiting.count > Self.bound { waiting.removeFirst(waiting.count - Self.bound) }
    }
  }
}
