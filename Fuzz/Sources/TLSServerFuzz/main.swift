// Fuzz target 3a: raw bytes from a stranger into the server's `TLSHandler` (OpenSSL
// through memory BIOs): no crash, bounded answers, a clean `TLSError`. See `TLSFeed`.
import FuzzDriver

let feed = try TLSFeed(role: .server)
fuzz { feed.run($0) }
