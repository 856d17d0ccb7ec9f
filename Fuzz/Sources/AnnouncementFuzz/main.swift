// Fuzz target 6: a datagram heard on the LAN announcement group (anyone on the network
// can send one), decoded as the client's discovery and the server's announcer decode it.
//
// Invariants: a decoded announcement keeps `Announcement`'s rule (a valid player name,
// port 1–65535, waiting 0–maxWaiting, a code of four groups of four digits); it encodes
// to a datagram within the size limit that decodes to the same value; and the line the
// client prints for it holds no control character (no escape code can reach a terminal).
import FuzzDriver
import RoshamboClient
import RoshamboProtocol

fuzz { bytes in
  guard case .announcement(let heard) = try? Announcement.decode(bytes) else { return }
  require(PlayerName.isValid(heard.name), "a name that breaks the rule was accepted")
  require((1...65_535).contains(heard.port), "port \(heard.port) was accepted")
  require((0...Announcement.maxWaiting).contains(heard.waiting), "waiting \(heard.waiting)")
  require(Announcement.isCode(heard.code), "code \(heard.code) was accepted")
  let again = heard.encoded()
  require(again.count <= Announcement.maxBytes, "re-encoded to \(again.count) bytes")
  require(
    (try? Announcement.decode(again)) == .announcement(heard),
    "\(heard) does not survive being encoded again")
  let line = DiscoveredServer(host: "192.0.2.1", announcement: heard).line
  require(
    !line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
    "the printed line holds a control character: \(line.debugDescription)")
}
