/// What the board answers a request, decided from its method, path and the size of its
/// headers alone: the page and its files, the event stream, or a refusal.
///
/// Invariant: only `GET` is ever answered with content; nothing a request says changes
/// the game.
enum BoardRoute: Equatable {
  case asset(BoardAsset)
  case events
  case notFound
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
    default: self = .notFound
    }
  }
}

/// One of the files the board's page is made of, kept in the binary.
///
/// Invariant: every asset's bytes are constants: no request's data is ever put in them.
enum BoardAsset: Equatable {
  case page, script, style

  var contentType: String {
    switch self {
    case .page: "text/html; charset=utf-8"
    case .script: "text/javascript; charset=utf-8"
    case .style: "text/css; charset=utf-8"
    }
  }

  var bytes: [UInt8] {
    switch self {
    case .page: Array(BoardPage.html.utf8)
    case .script: Array(BoardPage.script.utf8)
    case .style: Array(BoardPage.style.utf8)
    }
  }
}
