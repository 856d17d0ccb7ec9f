import RoshamboGame
import RoshamboProtocol

/// What the hub will send when it next flushes, in the order it was decided; each
/// accepted action adds the state of each room it touched.
///
/// Invariant: ``take()`` gives each room's state once per flush, after every welcome
/// into that room, so no connection sees a room's state before its welcome.
struct Outbox {
  enum Item {
    case message(Peer, ServerMessage)
    /// The room's latest state to everyone in it.
    case roomState(String)
    /// The room's latest state to one connection only.
    case stateTo(Peer, String)
    case close(Peer)
    /// A lobby view to every follower of the lobby (`to` nil) or to some; `toAll`: these
    /// are some of everyone's delivery (their size paces the next).
    case lobby(seq: Int, LobbyView, to: [Peer]?, toAll: Bool = false)
    /// What changed since the view at `base`, to the followers in step with it (part of
    /// everyone's delivery).
    case lobbyPatch(seq: Int, base: Int, fingerprint: String, LobbyPatch, to: [Peer])
    /// The view sent to every follower at `seq`, for the board (``HubConfiguration/feedsBoard``),
    /// which gets the tournament's earlier rounds with it.
    case board(seq: Int, LobbyView)
    /// The answer to the board's request for a record.
    case boardRecord(BoardRecordAnswer)
    /// A message to a follower that must come after the lobby views queued before it
    /// (those go out in slices, after other messages).
    case afterLobbyViews(Peer, ServerMessage)
  }

  private var items: [Item] = []

  mutating func append(_ item: Item) {
    items.append(item)
  }

  /// Everything queued, in sending order (see ``sendingOrder(_:)``), leaving it empty.
  mutating func take() -> [Item] {
    defer { items.removeAll(keepingCapacity: true) }
    return Self.sendingOrder(items)
  }

  /// Keeps only errors, closes and the board's records: what may still go out when the
  /// commit behind the rest failed.
  mutating func keepOnlyErrorsAndCloses() {
    items.removeAll { item in
      switch item {
      case .message(_, .error), .close, .boardRecord: false
      default: true
      }
    }
  }

  /// `items` with each room's state once, at the latest of its own places and the
  /// places of the welcomes into that room; everything else keeps its order.
  static func sendingOrder(_ items: [Item]) -> [Item] {
    var changed: Set<String> = []
    var lastPlace: [String: Int] = [:]
    for (index, item) in items.enumerated() {
      switch item {
      case .roomState(let room):
        changed.insert(room)
        lastPlace[room] = index
      case .message(_, .welcome(let room, _, _, _)):
        lastPlace[room] = index
      default:
        break
      }
    }
    var result: [Item] = []
    result.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      switch item {
      case .roomState(let room):
        if lastPlace[room] == index { result.append(item) }
      case .message(_, .welcome(let room, _, _, _)):
        result.append(item)
        if changed.contains(room), lastPlace[room] == index { result.append(.roomState(room)) }
      default:
        result.append(item)
      }
    }
    return result
  }
}
