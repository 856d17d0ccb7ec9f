import PostgresNIO
import RoshamboGame
import RoshamboHub

/// The fleet's name book in PostgreSQL (`roshambo_names`): the rule of ``FleetNameBook``
/// in SQL, so that a name held on one server of a fleet is held on all.
extension SharedHistory {
  /// The lock that makes offers take turns fleet-wide, so versions become visible in the
  /// order they were numbered and a reader's "changed since" misses none.
  static let namesLock = 7445
  /// Offers sent in one transaction at most.
  static let offersPerTransaction = 500
  /// Rows read at a time.
  static let namesPerRead = 1_000

  /// Applies `offers` in order, as ``FleetNameBook/offer(_:now:lapseMillis:)`` does, at
  /// `now` (ms since 1970) with the offering server's lapse; returns how many changed a row.
  @discardableResult
  public func offer(
    _ offers: [NameOffer], serverID: String, now: Int64, lapseMillis: Int64?
  ) async throws -> Int {
    var changed = 0
    var start = 0
    while start < offers.count {
      let chunk = offers[start..<min(offers.count, start + Self.offersPerTransaction)]
      start += chunk.count
      changed += try await transaction { connection in
        try await connection.query(
          "SELECT pg_advisory_xact_lock(\(Self.namesLock))", logger: logger)
        var changed = 0
        for offer in chunk {
          let rows =
            offer.kind == .release
            ? try await connection.query(
              """
              UPDATE roshambo_names SET released = true,
                version = nextval('roshambo_names_version')
              WHERE folded = \(offer.folded) AND identity = \(offer.identity) AND NOT released
              RETURNING folded
              """, logger: logger)
            : try await connection.query(
              """
              INSERT INTO roshambo_names AS kept (folded, identity, used_at, server_id)
                VALUES (\(offer.folded), \(offer.identity), \(offer.at), \(serverID))
              ON CONFLICT (folded) DO UPDATE SET identity = excluded.identity,
                used_at = CASE WHEN kept.identity = excluded.identity
                  THEN greatest(kept.used_at, excluded.used_at) ELSE excluded.used_at END,
                released = false, server_id = excluded.server_id,
                version = nextval('roshambo_names_version')
              WHERE (kept.identity = excluded.identity AND excluded.used_at > kept.used_at
                  AND (\(offer.kind.rawValue) = 'claim' OR NOT kept.released))
                OR (kept.identity = excluded.identity AND kept.released
                  AND \(offer.kind.rawValue) = 'claim')
                OR (kept.identity <> excluded.identity AND (kept.released
                  OR \(now) - kept.used_at >= \(lapseMillis ?? Int64.max)))
              RETURNING folded
              """, logger: logger)
          for try await _ in rows { changed += 1 }
        }
        return changed
      }
    }
    return changed
  }

  /// The rows of the name book changed after `version` (every row from 0), in the order
  /// they changed, at most ``namesPerRead``; with the version of the last.
  public func names(after version: Int64) async throws -> (rows: [FleetName], through: Int64) {
    let rows = try await client.query(
      """
      SELECT folded, identity, used_at, released, version FROM roshambo_names
        WHERE version > \(version) ORDER BY version LIMIT \(Self.namesPerRead)
      """, logger: logger)
    var read: [FleetName] = []
    var through = version
    for try await (folded, identity, usedAt, released, changed) in rows.decode(
      (String, String, Int64, Bool, Int64).self)
    {
      through = changed
      // A row another program wrote that no server could have is not a holder.
      guard NameAction.isIdentity(identity), NameBook.folded(folded) == folded else { continue }
      read.append(FleetName(folded: folded, identity: identity, usedAt: usedAt, released: released))
    }
    return (read, through)
  }
}
