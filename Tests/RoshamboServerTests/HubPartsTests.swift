import Logging
import NIOCore
import NIOEmbedded
import RoshamboConnections
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub
@testable import RoshamboServer

/// The hub's parts alone, without sockets or a loop turning: the backlog state machine,
/// the outbox's sending order, the journal batch.
@Suite("Server: the hub's parts")
struct HubPartsTests {
  let loop = EmbeddedEventLoop()

  func link(_ id: Int) -> Peer { Peer(id: id) }

  func frame(_ byte: UInt8) -> ByteBuffer { ByteBuffer(bytes: [byte]) }

  @Test(
    "backlogs: written when writable, held when not, in order, states in a row conflated, closed past the limit"
  )
  func backlogs() {
    var backlogs = ConnectionBacklogs<ByteBuffer>()
    #expect(backlogs.deliver(frame(1), bytes: 1, to: 7, isState: true, writable: true) == .write)
    #expect(backlogs.count == 0)
    #expect(backlogs.deliver(frame(2), bytes: 1, to: 7, isState: true, writable: false) == .held)
    // Once something waits, later frames wait behind it even if the channel says writable.
    #expect(backlogs.deliver(frame(3), bytes: 1, to: 7, isState: false, writable: true) == .held)
    // A state after other frames waits behind them: the one before it is not replaced,
    // so that nothing overtakes it (a welcome to the next room after the state that ended
    // the match in the last one).
    #expect(backlogs.deliver(frame(4), bytes: 1, to: 7, isState: true, writable: false) == .held)
    #expect(backlogs.deliver(frame(5), bytes: 1, to: 7, isState: false, writable: false) == .held)
    #expect(backlogs.drain(7) == [frame(2), frame(3), frame(4), frame(5)])
    // States in a row: a second replaces the one waiting (the older is skipped, and counted).
    #expect(backlogs.deliver(frame(6), bytes: 1, to: 7, isState: true, writable: false) == .held)
    #expect(
      backlogs.deliver(frame(7), bytes: 1, to: 7, isState: true, writable: false) == .replaced)
    #expect(backlogs.drain(7) == [frame(7)])
    #expect(backlogs.drain(7) == [])
    for index in 0..<ConnectionBacklog.limit {
      #expect(
        backlogs.deliver(frame(UInt8(index)), bytes: 1, to: 8, isState: false, writable: false)
          == .held)
    }
    #expect(backlogs.deliver(frame(99), bytes: 1, to: 8, isState: true, writable: false) == .held)
    #expect(
      backlogs.deliver(frame(100), bytes: 1, to: 8, isState: false, writable: false) == .close)
    #expect(backlogs.count == 0)
    _ = backlogs.deliver(frame(1), bytes: 1, to: 9, isState: true, writable: false)
    backlogs.forget(9)
    #expect(backlogs.drain(9) == [])
  }

  /// The items as short strings, to compare orders.
  func names(_ items: [Outbox.Item]) -> [String] {
    items.map { item in
      switch item {
      case .message(let link, .welcome(let room, _, _, _)): "welcome \(link.id) \(room)"
      case .message(let link, .error(let error, _)): "error \(link.id) \(error.code)"
      case .message(let link, _): "message \(link.id)"
      case .roomState(let room): "state \(room)"
      case .stateTo(let link, let room): "state \(room) to \(link.id)"
      case .close(let link): "close \(link.id)"
      case .lobby(let seq, _, let to, _): "lobby \(seq) to \(to.map { "\($0.map(\.id))" } ?? "all")"
      case .lobbyPatch(let seq, _, _, _, let to): "lobby patch \(seq) to \(to.map(\.id))"
      case .afterLobbyViews(let link, _): "after lobby views \(link.id)"
      case .board(let seq, _): "board \(seq)"
      case .boardRecord(let answer): "board record \(answer.request)"
      }
    }
  }

  @Test("the outbox sends each room's state once, after every welcome into the room")
  func sendingOrder() {
    let welcome = { (id: Int, room: String) in
      Outbox.Item.message(link(id), .welcome(room: room, seat: .one, token: nil))
    }
    let items: [Outbox.Item] = [
      .roomState("den"), welcome(1, "den"), .roomState("hall"),
      .message(link(2), .error(.badMessage("x"), re: nil)), .roomState("den"), welcome(3, "den"),
      welcome(4, "attic"), .roomState("hall"), .close(link(2)),
    ]
    #expect(
      names(Outbox.sendingOrder(items)) == [
        "welcome 1 den", "error 2 bad_message", "welcome 3 den", "state den", "welcome 4 attic",
        "state hall", "close 2",
      ])
  }

  func playing() -> LobbyState {
    var lobby = LobbyState(defaults: .init(bestOf: 1))
    lobby.apply(.join(room: "den", name: "Alice", token: "a", at: 0))
    lobby.apply(.join(room: "den", name: "Bob", token: "b", at: 0))
    return lobby
  }

  @Test("the batch keeps accepted actions in order with who asked, and the matches they finished")
  func batch() {
    var batch = JournalBatch()
    let pick = LobbyAction.room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 1))
    let timer = LobbyAction.room("den", .deadlinePassed(round: 1, at: 2))
    batch.record(pick, origin: Origin(link: link(1), re: 4))
    batch.record(timer, origin: nil)
    #expect(!batch.isEmpty)
    let sealed = batch.seal()
    #expect(sealed.actions == [pick, timer])
    #expect(sealed.origins.map(\.link.id) == [1])
    #expect(sealed.origins.map(\.re) == [4])
    #expect(batch.isEmpty)
  }
}
