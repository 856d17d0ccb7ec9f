// Fuzz target 4: what the journal reader meets in a damaged or crafted file. The
// input's first byte chooses (by its value mod 5): 0, the rest is format 2 journal rows
// (split at newlines), each read as `Journal.load` reads it and replayed onto a lobby
// with a room in play; 1, a format 2 snapshot; 2 and 3, the same in format 1, which is
// read only to migrate old data directories; 4, a kept match's `rounds` column, as
// `roshambo-server history` and the `match` request read it.
//
// Invariants: whatever a row, snapshot or rounds column decodes to (in either format),
// format 2 writes back and reads as the same value; a row the rules refuse leaves the
// lobby exactly as it was (`Journal.load` reports it as a bad row instead of skipping
// it); a rounds column never holds more than a match keeps.
import FuzzDriver
import RoshamboGame
import RoshamboJournalFormat
import RoshamboProtocol

var start = LobbyState(defaults: .init(ruleset: .lizardSpock, bestOf: 5))
_ = start.apply(.join(room: "den", name: "Alice", token: "a", at: 0))
_ = start.apply(.join(room: "den", name: "Bob", token: "b", at: 0))
let lobbyAtStart = start

fuzz { bytes in
  guard let mode = bytes.first else { return }
  let rest = bytes.dropFirst()
  if mode % 5 == 4 {
    guard let rounds = try? MatchRecord.rounds(from: rest) else { return }
    require(rounds.count <= FinishedMatch.roundLimit, "a column of \(rounds.count) rounds")
    let again = try? MatchRecord.rounds(from: MatchRecord.encode(rounds: rounds))
    require(again == rounds, "rounds do not survive being written back")
    return
  }
  if mode % 5 % 2 == 1 {
    let read: (Slice<UnsafeRawBufferPointer>) throws -> LobbyState =
      mode % 5 == 1
      ? { try JournalFormat.lobby(from: $0) } : { try JournalFormat.Version1.lobby(from: $0) }
    guard let lobby = try? read(rest) else { return }
    let again = try? JournalFormat.lobby(from: JournalFormat.bytes(of: lobby))
    require(again == lobby, "a snapshot does not survive being written back")
    return
  }
  let read: (Slice<UnsafeRawBufferPointer>) throws -> LobbyAction =
    mode % 5 == 0
    ? { try JournalFormat.action(from: $0) } : { try JournalFormat.Version1.action(from: $0) }
  var lobby = lobbyAtStart
  for row in rest.split(separator: 0x0A) {
    guard let action = try? read(row) else { continue }
    let again = try? JournalFormat.action(from: JournalFormat.bytes(of: action))
    require(again == action, "\(action) is written back as \(String(describing: again))")
    let before = lobby
    if lobby.apply(action) != nil { require(lobby == before, "a refused row changed the lobby") }
  }
}
