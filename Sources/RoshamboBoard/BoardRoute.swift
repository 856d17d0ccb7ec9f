/// What the board answers a request, decided from its method, path and the size of its
/// headers alone: the page and its files, the event stream, a match's replay page and
/// record, or a refusal.
///
/// Invariant: only `GET` is ever answered with content; nothing a request says changes
/// the game; a match number in a route is a positive whole number below 10^18.
enum BoardRoute: Equatable {
  case asset(BoardAsset)
  case events
  /// `/match/N`: the page that steps through match N's record (the same page for every
  /// N: its script reads N from its address).
  case replay(match: Int64)
  /// `/match/N.json`: match N's record with its check, asked of the hub.
  case record(match: Int64)
  case notFound
  /// `/match/…` naming no match: not a positive whole number, or too large.
  case notAMatchNumber
  /// Another method than GET.
  case methodNotAllowed
  /// The request's headers are over ``maxHeaderBytes``.
  case headersTooLarge

  /// The most bytes a request's header lines may take in all (names and values).
  static let maxHeaderBytes = 8 * 1024

  init(method: String, uri: String, headerBytes: Int) {
    guard headerBytes <= Self.maxHeaderBytes else {
      self = .headersTooLarge
      return
    }
    guard method == "GET" else {
      self = .methodNotAllowed
      return
    }
    // The query (a cache-buster, say) names nothing here.
    let path =
      uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
      .map(String.init) ?? uri
    switch path {
    case "/", "/index.html": self = .asset(.page)
    case "/board.js": self = .asset(.script)
    case "/board.css": self = .asset(.style)
    case "/events": self = .events
    case "/replay.js": self = .asset(.replayScript)
    case "/replay.css": self = .asset(.replayStyle)
    default:
      guard path.hasPrefix("/match/") else {
        self = .notFound
        return
      }
      let rest = path.dropFirst("/match/".count)
      if rest.hasSuffix(".json") {
        self =
          Self.matchNumber(rest.dropLast(".json".count)).map { .record(match: $0) }
          ?? .notAMatchNumber
      } else {
        self = Self.matchNumber(rest).map { .replay(match: $0) } ?? .notAMatchNumber
      }
    }
  }

  /// `text` as a match's number: 1 to 18 decimal digits, not starting with 0 (so one
  /// number has one address), else nil.
  static func matchNumber(_ text: Substring) -> Int64? {
    guard (1...18).contains(text.utf8.count), text.first != "0",
      text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else { return nil }
    return Int64(text)
  }
}

/// One of the files the board's page is made of, kept in the binary.
///
/// Invariant: every asset's bytes are constants: no request's data is ever put in them.
enum BoardAsset: Equatable {
  case page, script, style
  /// A match's replay page (``ReplayPage``), its script and its style.
  case replayPage, replayScript, replayStyle

  var contentType: String {
    switch self {
    case .page, .replayPage: "text/html; charset=utf-8"
    case .script, .replayScript: "text/javascript; charset=utf-8"
    case .style, .replayStyle: "text/css; charset=utf-8"
    }
  }

  var bytes: [UInt8] {
    switch self {
    case .page: Array(BoardPage.html.utf8)
    case .script: Array(BoardPage.script.utf8)
    case .style: Array(BoardPage.style.utf8)
    case .replayPage: Array(ReplayPage.html.utf8)
    case .replayScript: Array(ReplayPage.script.utf8)
    case .replayStyle: Array(ReplayPage.style.utf8)
    }
  }
}
