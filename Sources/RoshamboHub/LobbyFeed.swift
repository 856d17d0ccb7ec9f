import RoshamboGame

/// When the lobby's followers get their next `lobby` view: at most one every
/// ``interval`` ms (longer with many followers, see ``bytesPerSecond``), only after
/// something changed, each with a higher `seq`; a new follower gets the current one at
/// once. A value: the hub asks it at each flush.
///
/// Followers that take patches (their `hello` said `patches`) get, after a whole first
/// view, only what changed since ``sent``: one patch made once for all of them. Their
/// first view is the current lobby too: while a change waits for the next view to all,
/// a new (or resyncing) patch follower waits with it and gets that view whole, since
/// ``sent`` would be stale (a bot that challenged on it challenged people gone).
///
/// Invariants: `seq` rises by one with each view sent to every follower, and never
/// otherwise; two views to all are at least ``interval`` ms apart; ``sent`` is the view
/// sent to all at `seq` (what every patch follower in step has).
struct LobbyFeed {
  /// The shortest time between two views to every follower, ms (4 a second).
  static let interval: Int64 = 250
  /// What views to every follower may send in all, bytes a second: with many followers
  /// or big views they go out less often (`interval(followers:viewBytes:)`), so following
  /// the lobby never costs the game more than this much encryption and copying.
  static let bytesPerSecond = 8_000_000

  /// The time between two views to every follower: ``interval``, or longer when
  /// `followers` views of `viewBytes` each at that rate would exceed ``bytesPerSecond``.
  static func interval(followers: Int, viewBytes: Int) -> Int64 {
    let needed = Int64(followers) * Int64(viewBytes) * 1_000 / Int64(bytesPerSecond)
    return max(interval, needed)
  }

  /// The size of the last view sent to all, bytes (to pace the next).
  var lastViewBytes = 0

  private(set) var seq = 0
  /// Whether the lobby changed since the last view sent to all.
  private(set) var changed = false
  private var lastSentAt: Int64?
  /// Followers who have not had a view yet, and whether each takes patches.
  private var newcomers: [(link: Peer, takesPatches: Bool)] = []
  /// The newcomers the last `.everyone` served: a patch follower among them needs the
  /// whole view, not the patch.
  private(set) var servedNewcomers: Set<Peer> = []
  /// The same newcomers in the order they came, and when the view to all before went out:
  /// what ``sentNothingNew()`` puts back.
  private var lastServed: [(link: Peer, takesPatches: Bool)] = []
  private var sentAtBefore: Int64?
  /// The view sent to all at ``seq`` (nil before the first): patches are made from it, and
  /// a patch follower that is new or asked again gets it whole.
  var sent: LobbyView?
  /// The leaderboard's top, as the journal last counted it.
  var leaders: [LobbyView.Leader] = []
  /// The matches finished lately, as the journal last listed them (newest first).
  var recent: [LobbyView.Recent] = []

  /// The shortest time between two whole views one follower gets by asking again
  /// (`lobbyResync`), ms: a client asking in a loop gets one every 2 s, the newest.
  static let resyncInterval: Int64 = 2_000
  /// When each follower's last `lobbyResync` was answered, and those waiting for their
  /// next answer (at most one each, however often they asked).
  private var resyncAnsweredAt: [Int: Int64] = [:]
  private var resyncsWaiting: [Int: Peer] = [:]

  /// `link` asks for the whole view again at `now`: it is served as a newcomer when its
  /// last answer is ``resyncInterval`` old (returns nil), else it waits until then and is
  /// served once with the view of that moment (returns when).
  mutating func resyncAsked(by link: Peer, now: Int64) -> Int64? {
    if let last = resyncAnsweredAt[link.id], now - last < Self.resyncInterval {
      resyncsWaiting[link.id] = link
      return last + Self.resyncInterval
    }
    resyncAnsweredAt[link.id] = now
    followed(by: link, takesPatches: true)
    return nil
  }

  /// The waiting resyncs due at `now` join the newcomers; returns when the next one still
  /// waiting is due.
  mutating func resyncsDue(now: Int64) -> Int64? {
    guard !resyncsWaiting.isEmpty else { return nil }
    var next: Int64?
    for id in resyncsWaiting.keys.sorted() {
      let due = (resyncAnsweredAt[id] ?? now) + Self.resyncInterval
      guard due <= now else {
        next = min(next ?? due, due)
        continue
      }
      if let link = resyncsWaiting.removeValue(forKey: id) {
        resyncAnsweredAt[id] = now
        followed(by: link, takesPatches: true)
      }
    }
    return next
  }

  /// The connection is gone: its resyncs with it.
  mutating func forget(_ id: Int) {
    resyncAnsweredAt[id] = nil
    resyncsWaiting[id] = nil
  }

  /// Something a follower sees changed (a room, someone arriving or leaving).
  mutating func lobbyChanged() { changed = true }

  /// A lobby view went out with a commit that failed, so nothing of it was sent: the
  /// followers do not have ``sent``. The next view to all goes whole to every follower
  /// (a patch from ``sent`` would not apply, and each would ask for the whole view).
  var lastViewLost = false

  mutating func viewLost() {
    lastViewLost = true
    changed = true
  }

  mutating func followed(by link: Peer, takesPatches: Bool) {
    newcomers.append((link, takesPatches))
  }

  /// What to send at a flush at `now` (ms), with `followers` following.
  enum Decision: Equatable {
    case nothing
    /// A view to every follower, with this `seq`.
    case everyone(seq: Int)
    /// A view, with this `seq`, to these new followers only.
    case newcomers([Peer], seq: Int)
    /// Nothing now; flush again at this moment (ms).
    case later(at: Int64)
  }

  mutating func decide(now: Int64, followers: Int) -> Decision {
    guard followers > 0 else {
      newcomers.removeAll()
      return .nothing
    }
    if changed {
      let interval = Self.interval(followers: followers, viewBytes: lastViewBytes)
      if let last = lastSentAt, now - last < interval {
        // Whole views now; patch followers with the next view to all (``sent`` is stale).
        let served = newcomers.filter { !$0.takesPatches }.map(\.link)
        if !served.isEmpty {
          newcomers.removeAll { !$0.takesPatches }
          return .newcomers(served, seq: seq)
        }
        return .later(at: last + interval)
      }
      seq += 1
      changed = false
      sentAtBefore = lastSentAt
      lastSentAt = now
      servedNewcomers = Set(newcomers.map(\.link))
      lastServed = newcomers
      newcomers.removeAll()
      return .everyone(seq: seq)
    }
    return newcomers.isEmpty ? .nothing : .newcomers(takeNewcomers(), seq: seq)
  }

  /// The view made for the last ``Decision/everyone(seq:)`` is the one sent to all
  /// before: what changed is nothing a follower sees (a lone pick, a commitment). Nothing
  /// goes to all, so nobody learns that something happened; `seq` and the time of the
  /// last view go back, and the newcomers it would have served wait to be served as
  /// newcomers (``decide(now:followers:)`` gives them next).
  mutating func sentNothingNew() {
    seq -= 1
    lastSentAt = sentAtBefore
    newcomers = lastServed + newcomers
    lastServed = []
    servedNewcomers = []
  }

  private mutating func takeNewcomers() -> [Peer] {
    defer { newcomers.removeAll() }
    return newcomers.map(\.link)
  }
}
