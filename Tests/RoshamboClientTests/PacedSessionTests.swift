import NIOConcurrencyHelpers
import NIOCore
import RoshamboProtocol
import RoshamboTLS
import Testing

@testable import RoshamboClient

/// A server that welcomes a player into a running match, announcing a rate, then refuses
/// every pick as `rate_limited` (naming it by `re`), `refusals` times in all, and takes
/// the next one; it records each pick it is sent.
final class RefusingServer: Sendable {
  let channel: any Channel
  let picks = NIOLockedValueBox<[ClientMessage]>([])
  var port: Int { channel.localAddress!.port! }

  init(refusals: Int) async throws {
    let picks = self.picks
    channel = try await HostileServer.listen { Refuser(refusals: refusals, picks: picks) }
  }

  func close() async { try? await channel.close() }

  final class Refuser: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let picks: NIOLockedValueBox<[ClientMessage]>
    var refusals: Int

    init(refusals: Int, picks: NIOLockedValueBox<[ClientMessage]>) {
      self.refusals = refusals
      self.picks = picks
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let bytes = unwrapInboundIn(data)
      let decoded = bytes.withUnsafeReadableBytes { ClientMessage.decode($0) }
      guard case .success(let message) = decoded else { return }
      switch message {
      case .hello:
        send(
          #"{"type":"welcome","protocol":1,"room":"den","seat":1,"token":"t","rate":{"perSecond":20,"burst":40}}"#,
          context)
        let players = "[\(player(1, "Tester")),\(player(2, "B"))]"
        send(#"{"type":"state","seq":1,"view":\#(view(players: players))}"#, context)
      case .choose(_, _, let id):
        picks.withLockedValue { $0.append(message) }
        guard refusals > 0, let id else { return }
        refusals -= 1
        send(
          #"{"type":"error","code":"rate_limited","message":"More than 20 messages per second","fatal":false,"re":\#(id)}"#,
          context)
      default:
        break
      }
    }

    private func send(_ payload: String, _ context: ChannelHandlerContext) {
      context.writeAndFlush(NIOAny(ByteBuffer(bytes: frame(payload))), promise: nil)
    }
  }
}

/// A session's pacer at work on a real connection: a pick the server drops as too fast is
/// sent again, the same message with the same `id`, and given up after the bound, said.
@MainActor
@Suite("Client: a paced session", .serialized)
struct PacedSessionTests {
  func play(refusals: Int) async throws -> (picks: [ClientMessage], said: [String], notice: String?)
  {
    let server = try await RefusingServer(refusals: refusals)
    defer { Task { await server.close() } }
    let connection = try await ServerConnection.connect(
      host: "127.0.0.1", port: server.port, tls: try ClientTestCertificates.clientTLS())
    let session = ClientSession(connection: connection)
    var said: [String] = []
    let bot = Bot(session: session, strategy: .rock, matches: 1) { said.append($0) }
    bot.start()
    session.join(name: "Tester", room: "den")
    let running = Task { _ = await session.run() }
    defer { running.cancel() }
    try await waitUntil("the picks were sent, and the last refused or taken") {
      let count = server.picks.withLockedValue { $0.count }
      return count == min(refusals, Pacer.resendLimit) + 1
        && (refusals <= Pacer.resendLimit || session.store.state.context.notice != nil)
    }
    session.hangUp()
    return (server.picks.withLockedValue { $0 }, said, session.store.state.context.notice)
  }

  @Test("a pick refused as too fast is sent again, by its id, until the server takes it")
  func sentAgain() async throws {
    let (picks, said, notice) = try await play(refusals: 2)
    #expect(picks.count == 3)
    #expect(picks.allSatisfy { $0 == picks[0] }, "the same pick, the same id: \(picks)")
    #expect(picks.first?.id != nil)
    #expect(!said.contains { $0.contains("gave up") })
    #expect(notice == nil, "a refusal sent again is not shown")
  }

  @Test("a pick refused more often than the bound is given up, and the player told so")
  func givenUp() async throws {
    let (picks, said, notice) = try await play(refusals: 10)
    #expect(picks.count == Pacer.resendLimit + 1)
    let words =
      "gave up sending your pick for round 2: the server refused it 6 times as too fast "
      + "(it takes 20 messages a second)"
    #expect(said.contains(words), "\(said)")
    #expect(notice == "G" + words.dropFirst() + ".")
  }
}
