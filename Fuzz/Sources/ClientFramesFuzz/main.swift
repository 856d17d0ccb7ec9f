// Fuzz target 2: what a server, perhaps a hostile one, sends the client. The input is
// the byte stream from the server after TLS: cut into frames by the real
// `FrameDecoder`, decoded as `ServerMessage`s, passed through `ServerIntake` (sanitizing
// and the view contract), reduced by `ClientReducer`, and the resulting screen drawn by
// `ScreenRenderer` at 80 and 40 columns.
//
// Invariants: a decoded message encodes and decodes to itself; a message the intake
// refuses changes nothing; every view the client keeps is for the room it was welcomed
// to, with a `seq` above the last one kept in that room; a player's running match never
// goes back (to an earlier round, or to waiting); every drawn line fits its width in
// terminal columns and holds no control character, no C1 control and no bidirectional
// override.
import FuzzDriver
import RoshamboClient
import RoshamboGame
import RoshamboProtocol

let renderers = [80, 40].map { ScreenRenderer(width: $0, color: false) }

fuzz { bytes in
  var state = ClientState()
  ClientReducer().reduce(into: &state, action: .welcome(room: "den", seat: .one, token: "t"))
  for frame in frames(in: bytes).frames {
    guard let message = try? frame.withUnsafeReadableBytes({ try ServerMessage.decode($0) })
    else { continue }
    let again = try? ServerMessage.decode(message.encoded())
    require(again == message, "\(message) re-decodes as \(String(describing: again))")
    switch ServerIntake.outcome(of: message, state: state, welcomed: true) {
    case .action(let action):
      let before = state
      ClientReducer().reduce(into: &state, action: action)
      guard case .synced = action, let view = state.view, view != before.view else { continue }
      require(view.room == state.room, "kept a view of \(view.room) in \(state.room ?? "-")")
      if before.room == state.room {
        require(state.seq > before.seq, "seq \(before.seq) then \(state.seq)")
      }
      if let previous = before.view, previous.phase == .choosing, view.you != nil,
        before.room == state.room
      {
        require(
          view.round >= previous.round && view.phase != .waiting,
          "round \(previous.round) went back to \(view.round) (\(view.phase))")
      }
    case .violation, .pong: continue
    }
  }
  // The screen as it stands after the whole stream (drawing after every message would
  // cost more than the decoding being fuzzed).
  for renderer in renderers {
    for line in renderer.lines(for: state.props) {
      require(
        DisplayWidth.columns(of: line) <= renderer.width,
        "\(line.debugDescription) is wider than \(renderer.width)")
      require(
        !line.unicodeScalars.contains {
          $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
            || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }, "\(line.debugDescription) holds a control character")
    }
  }
}
