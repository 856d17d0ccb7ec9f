// Fuzz target 4: what the journal reader meets in a damaged or crafted file. The
// input's first byte chooses: even, the rest is journal rows (split at newlines), each
// read as `Journal.load` reads it and replayed onto a lobby with a room in play; odd,
// the rest is a snapshot read as the whole lobby.
//
// Invariants: whatever a row or snapshot decodes to, the journal's own writer writes
// back as the same value; a row the rules refuse leaves the lobby exactly as it was
// (`Journal.load` reports it as a bad row instead of skipping it).
import FuzzDriver
import RoshamboGame
import RoshamboServer

var start = LobbyState(defaults: .init(ruleset: .lizardSpock, bestOf: 5))
_ = start.apply(.join(room: "den", name: "Alice", token: "a", at: 0))
_ = start.apply(.join(room: "den", name: "Bob", token: "b", at: 0))
let lobbyAtStart = start

fuzz { bytes in
  guard let mode = bytes.first else { return }
  let rest = bytes.dropFirst()
  if mode % 2 == 1 {
    guard let lobby = try? JournalFormat.lobby(from: rest) else { return }
    let again = try? JournalFormat.lobby(from: JournalFormat.bytes(of: lobby))
    require(again == lobby, "a snapshot does not survive being written back")
    return
  }
  var lobby = lobbyAtStart
  for row in rest.split(separator: 0x0A) {
    guard let action = try? JournalFormat.action(from: row) else { continue }
    let again = try? JournalFormat.action(from: JournalFormat.bytes(of: action))
    require(again == action, "\(action) is written back as \(String(describing: again))")
    let before = lobby
    if lobby.apply(action) != nil { require(lobby == before, "a refused row changed the lobby") }
  }
}
