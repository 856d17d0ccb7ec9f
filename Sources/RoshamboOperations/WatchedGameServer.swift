import Foundation

/// The GameServer as one line of the SDK server's `GET /watch/gameserver` stream shows
/// it (`{"result": {"object_meta": …, "status": …}}`, one JSON object per line): its
/// state, its Counters' counts and its Lists' values, which is what the server acts on.
///
/// Invariant: built only from a line that is a JSON object with a `result` whose
/// `status.state` is a string; everything else in the line is ignored.
struct WatchedGameServer: Equatable, Sendable {
  /// "Ready", "Allocated", "Shutdown", …
  var state: String
  var counts: [String: Int]
  var lists: [String: [String]]

  /// The longest line read; a longer one is not the SDK server's.
  static let maxLine = 1 << 20

  /// The line's GameServer, or nil for a line that is not one (an error the stream
  /// reports, a keep-alive, or something malformed).
  init?(line: some Collection<UInt8>) {
    guard line.count <= Self.maxLine,
      let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
      let result = object["result"] as? [String: Any],
      let status = result["status"] as? [String: Any],
      let state = status["state"] as? String
    else { return nil }
    self.state = state
    // Counts are int64, which proto3's JSON writes as strings; numbers are accepted too.
    counts = [:]
    for (key, value) in status["counters"] as? [String: Any] ?? [:] {
      let count = (value as? [String: Any])?["count"]
      if let text = count as? String, let number = Int(text) {
        counts[key] = number
      } else if let number = count as? Int {
        counts[key] = number
      }
    }
    lists = [:]
    for (key, value) in status["lists"] as? [String: Any] ?? [:] {
      let values = (value as? [String: Any])?["values"] as? [Any] ?? []
      lists[key] = values.compactMap { $0 as? String }
    }
  }

  init(state: String, counts: [String: Int] = [:], lists: [String: [String]] = [:]) {
    self.state = state
    self.counts = counts
    self.lists = lists
  }
}
