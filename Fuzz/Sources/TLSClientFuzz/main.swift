// Fuzz target 3b: raw bytes from a server into the client's `TLSHandler`, after its
// ClientHello: no crash, bounded answers, a clean `TLSError`. See `TLSFeed`.
import FuzzDriver

let feed = try TLSFeed(role: .client)
fuzz { feed.run($0) }
