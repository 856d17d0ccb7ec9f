import RoshamboHub
import RoshamboJSON
import RoshamboProtocol

/// What the board's viewers are sent, as a value: the lobby views the server's followers
/// get come in (``received(_:at:)``), the Server-Sent Events for the viewers come out. A
/// viewer that opens the stream gets the whole view first (``welcome``), then what
/// changed, as the lobby's `lobbyPatch` with its fingerprint; and the leaders' ratings
/// as they changed since the server started (a `ratings` event), for the evening's chart.
///
/// Invariant: every patch it returns is made from the view it returned or welcomed with
/// last, so a viewer that has had every event since its welcome is in step; the `lobby`
/// event's data is the followers' `lobby` message byte for byte, but for the tournament's
/// earlier rounds (`earlier`), which only the board gets; the rating points it keeps are
/// at most ``maxRatingPoints``, oldest first, one for each change of a listed rating.
struct BoardFeed {
  /// The view every viewer in step has (nil before the first).
  private(set) var latest: SentLobbyView?

  /// One listed player's rating from when it was first seen or changed (ms since 1970,
  /// by the server's clock).
  struct RatingPoint: Equatable {
    var at: Int64
    var name: String
    var rating: Double
  }

  /// The leaders' ratings as they changed, oldest first.
  private(set) var ratings: [RatingPoint] = []
  /// Each listed name's last rating in ``ratings``.
  private var lastRating: [String: Double] = [:]
  /// The most points kept: an evening's worth of a leaderboard of ten.
  static let maxRatingPoints = 2_000

  /// The events for a viewer that opens the stream now: the ratings so far, then the whole
  /// view (nil before the first view, which then comes as an event to all). The ratings
  /// come first so that a page that stops at its first view has them.
  var welcome: [UInt8]? {
    latest.map { (ratings.isEmpty ? [] : Self.ratingsEvent(ratings)) + Self.event($0.message) }
  }

  /// A view went to every follower at `at`: the events for every viewer in step (the
  /// ratings that changed, if any, then the whole view when it is the first one, or the
  /// patch).
  mutating func received(_ view: SentLobbyView, at: Int64) -> [UInt8] {
    let changed = noteRatings(of: view, at: at)
    let ratingsEvent = changed.isEmpty ? [] : Self.ratingsEvent(changed)
    defer { latest = view }
    guard let latest else { return ratingsEvent + Self.event(view.message) }
    let patch = LobbyPatch.make(from: latest.view, to: view.view)
    let message = ServerMessage.lobbyPatch(
      seq: view.seq, base: latest.seq, fingerprint: view.view.fingerprint, patch: patch)
    return ratingsEvent + Self.event(message.encoded())
  }

  /// Keeps a point for each of `view`'s leaders whose rating is new or changed; returns
  /// them.
  private mutating func noteRatings(of view: SentLobbyView, at: Int64) -> [RatingPoint] {
    var changed: [RatingPoint] = []
    for leader in view.view.leaders {
      guard let rating = leader.rating?.points, lastRating[leader.name] != rating else { continue }
      lastRating[leader.name] = rating
      changed.append(RatingPoint(at: at, name: leader.name, rating: rating))
    }
    ratings += changed
    if ratings.count > Self.maxRatingPoints {
      ratings.removeFirst(ratings.count - Self.maxRatingPoints)
    }
    return changed
  }

  /// `points` as one `ratings` event: `{"type":"ratings","points":[{"at":…,"name":…,
  /// "rating":…}]}`, the rating to the wire's six decimals.
  static func ratingsEvent(_ points: [RatingPoint]) -> [UInt8] {
    var json = JSONText(capacity: 64 + points.count * 48)
    json.raw(#"{"type":"ratings","points":["#)
    for (index, point) in points.enumerated() {
      if index > 0 { json.comma() }
      json.raw(#"{"at":"#)
      json.int(point.at)
      json.raw(#","name":"#)
      json.string(point.name)
      json.raw(#","rating":"#)
      json.decimal(point.rating)
      json.raw("}")
    }
    json.raw("]}")
    return event(json.bytes, name: "ratings")
  }

  /// The server is closing: viewers are told before their stream ends.
  static let closing = event(Array(#"{"type":"closing"}"#.utf8), name: "closing")

  /// Sent first on every stream: the browser tries again one second after a lost stream.
  static let retry = Array("retry: 1000\n\n".utf8)

  /// A comment, which keeps idle proxies from closing the stream and tells a dead one.
  static let keepalive = Array(": keepalive\n\n".utf8)

  /// `data` as one Server-Sent Event. The protocol's JSON is one line (its strings
  /// escape line breaks), so it is one `data:` line.
  static func event(_ data: [UInt8], name: String? = nil) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(data.count + 32)
    if let name { bytes += Array("event: \(name)\n".utf8) }
    bytes += Array("data: ".utf8)
    bytes += data
    bytes += Array("\n\n".utf8)
    return bytes
  }
}
