import RoshamboHub
import RoshamboProtocol

/// What the board's viewers are sent, as a value: the lobby views the server's followers
/// get come in (``received(_:)``), the Server-Sent Events for the viewers come out. A
/// viewer that opens the stream gets the whole view first (``welcome``), then what
/// changed, as the lobby's `lobbyPatch` with its fingerprint.
///
/// Invariant: every patch it returns is made from the view it returned or welcomed with
/// last, so a viewer that has had every event since its welcome is in step; the `lobby`
/// event's data is the followers' `lobby` message byte for byte, but for the tournament's
/// earlier rounds (`earlier`), which only the board gets.
struct BoardFeed {
  /// The view every viewer in step has (nil before the first).
  private(set) var latest: SentLobbyView?

  /// The event for a viewer that opens the stream now: the whole view (nil before the
  /// first view, which then comes as an event to all).
  var welcome: [UInt8]? {
    latest.map { Self.event($0.message) }
  }

  /// A view went to every follower: the event for every viewer in step (the whole view
  /// when it is the first one).
  mutating func received(_ view: SentLobbyView) -> [UInt8] {
    defer { latest = view }
    guard let latest else { return Self.event(view.message) }
    let patch = LobbyPatch.make(from: latest.view, to: view.view)
    let message = ServerMessage.lobbyPatch(
      seq: view.seq, base: latest.seq, fingerprint: view.view.fingerprint, patch: patch)
    return Self.event(message.encoded())
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
