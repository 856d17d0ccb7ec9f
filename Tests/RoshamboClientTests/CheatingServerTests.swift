import Foundation
import NIOCore
import NIOPosix
import ProcessFixtures
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS
import Testing

/// A server that plays a fair room with the client honestly up to the reveals, then
/// reports the round as its `lie` says: the way a patched server, or its host, would
/// cheat. Seat 2 ("Mallory") is the server's own player.
final class CheatingServer: Sendable {
  enum Lie: Sendable {
    /// Reports the round as played: the control case.
    case none
    /// Shows one commitment for Mallory before the reveals, then reports the round with
    /// another (and a weapon and nonce that match the other).
    case swapDigest
    /// Reports a weapon for Mallory other than the one committed to.
    case otherWeapon
    /// First a view of another room, then the swapped digest.
    case otherRoomFirst
    /// First a view back at waiting for players (round 1), then the swapped digest.
    case backToWaiting
    /// Reports the round honestly, then gives the match (best of 1) to Mallory anyway.
    case matchToOpponent
    /// Shows the client's reveal as received, then reports its weapon as missing.
    case revealMissing
  }

  let channel: any Channel
  var port: Int { channel.localAddress!.port! }

  init(lie: Lie) async throws {
    channel = try await HostileServer.listen { Play(lie: lie) }
  }

  func close() async { try? await channel.close() }

  final class Play: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let lie: Lie
    var seq = 0
    var mine: String?
    // Mallory's honest commitment to scissors, and the one a swap shows instead.
    let malloryNonce = Array(repeating: UInt8(7), count: 32)
    var mallory: String {
      Commitment.digest(room: "den", round: 1, seat: .two, weapon: .scissors, nonce: malloryNonce)
    }

    init(lie: Lie) { self.lie = lie }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard case .success(let message) = ClientMessage.decode(Array(buffer: unwrapInboundIn(data)))
      else { return }
      switch message {
      case .hello:
        send(.welcome(room: "den", seat: .one, token: "t"), context)
        send(
          state(round: 1, players: [player(.one, commitment: nil), player(.two, commitment: nil)]),
          context)
      case .commit(let round, let digest, _) where round == 1:
        // Round 1 only: the tests judge round 1 and then stop the bot.
        mine = digest
        send(
          state(
            round: 1,
            players: [player(.one, commitment: digest), player(.two, commitment: mallory)]),
          context)
      case .reveal(_, let weapon, let nonce, _):
        // Mallory "wins" whatever the client played: what the lie claims.
        var weapons: [Weapon?] = [weapon, .scissors]
        var commitments: [String?] = [mine, mallory]
        var nonces: [String?] = [nonce, Commitment.hex(malloryNonce)]
        var winner: Seat? =
          switch Ruleset.classic.outcome(weapon, .scissors) {
          case .first: .one
          case .second: .two
          case .draw: nil
          }
        switch lie {
        case .none, .matchToOpponent:
          break
        case .revealMissing:
          var ack = state(
            round: 1, players: [player(.one, commitment: mine), player(.two, commitment: mallory)])
          if case .state(let seq, var shown) = ack {
            shown.players[0].revealed = true
            ack = .state(seq: seq, view: shown)
          }
          send(ack, context)
          weapons[0] = nil
          nonces[0] = nil
          winner = .two
        case .otherRoomFirst, .backToWaiting:
          var detour = state(
            round: 1, players: [player(.one, commitment: nil), player(.two, commitment: nil)])
          if case .state(let seq, var shown) = detour {
            if lie == .otherRoomFirst { shown.room = "den-x" } else { shown.phase = .waiting }
            detour = .state(seq: seq, view: shown)
          }
          send(detour, context)
          fallthrough
        case .swapDigest:
          let beating: Weapon = weapon == .rock ? .paper : weapon == .paper ? .scissors : .rock
          let nonce = Array(repeating: UInt8(9), count: 32)
          weapons[1] = beating
          commitments[1] = Commitment.digest(
            room: "den", round: 1, seat: .two, weapon: beating, nonce: nonce)
          nonces[1] = Commitment.hex(nonce)
          winner = .two
        case .otherWeapon:
          // Never scissors, the weapon Mallory did commit to.
          weapons[1] = weapon == .scissors ? .rock : .paper
          winner = .two
        }
        let result = RoundResult(
          round: 1, weapons: weapons, winner: winner, reason: nil, commitments: commitments,
          nonces: nonces)
        var view = state(
          round: 2, players: [player(.one, commitment: nil), player(.two, commitment: nil)])
        if case .state(_, var shown) = view {
          shown.history = [result]
          // The scores follow from the round, as an honest server's do.
          for index in shown.players.indices where shown.players[index].seat == winner {
            shown.players[index].score = 1
          }
          if lie == .matchToOpponent {
            shown.bestOf = 1
            shown.round = 1
            shown.phase = .over
            shown.winner = .two
            shown.players[0].score = 0
            shown.players[1].score = 1
          }
          view = .state(seq: seq, view: shown)
        }
        send(view, context)
      default:
        break
      }
    }

    private func player(_ seat: Seat, commitment: String?) -> PlayerView {
      PlayerView(
        seat: seat, name: seat == .one ? "Tester" : "Mallory", connected: true,
        chosen: commitment != nil, weapon: nil, score: 0, commitment: commitment)
    }

    private func state(round: Int, players: [PlayerView]) -> ServerMessage {
      seq += 1
      return .state(
        seq: seq,
        view: RoomView(
          room: "den", ruleset: .classic, bestOf: 3, phase: .choosing, round: round, you: .one,
          players: players, history: [], winner: nil, deadline: nil, fair: true))
    }

    private func send(_ message: ServerMessage, _ context: ChannelHandlerContext) {
      context.writeAndFlush(NIOAny(ByteBuffer.frame(message.encoded())), promise: nil)
    }
  }
}

@Suite("The client catches a cheating server", .serialized)
struct CheatingServerTests {
  /// Runs `roshambo bot --fair` against a cheating server; returns its exit status, what
  /// it printed, and the evidence files it left.
  func play(against lie: CheatingServer.Lie, strategy: String = "random") async throws -> (
    Int32, String, [String]
  ) {
    let server = try await CheatingServer(lie: lie)
    defer { Task { await server.close() } }
    let state = NSTemporaryDirectory() + "roshambo-evidence-\(UUID().uuidString)"
    let bot = Process()
    bot.executableURL = URL(fileURLWithPath: repositoryRoot + "/.build/debug/roshambo")
    bot.arguments = [
      "bot", "--host", "127.0.0.1", "--port", String(server.port), "--ca",
      ClientTestCertificates.files.caCertificate, "--name", "Tester", "--room", "den", "--fair",
      "--strategy", strategy,
    ]
    bot.environment = ["XDG_STATE_HOME": state, "HOME": state, "PATH": "/usr/bin:/bin"]
    let pipe = Pipe()
    bot.standardOutput = pipe
    bot.standardError = pipe
    try bot.run()
    // Whatever happens, the bot does not outlive 20 s (a hang is a failure, not a stall).
    let watchdog = DispatchWorkItem { if bot.isRunning { bot.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
    defer { watchdog.cancel() }
    // The control server never ends the match: stop the bot once it has judged round 1.
    let stopsAfterRound1 = lie == .none
    let printed = await blocking {
      var printed = ""
      while true {
        let data = pipe.fileHandleForReading.availableData
        if data.isEmpty { break }
        printed += String(decoding: data, as: UTF8.self)
        if stopsAfterRound1, printed.contains("round 1:") {
          bot.interrupt()
        }
      }
      bot.waitUntilExit()
      return printed
    }
    let files = (try? FileManager.default.contentsOfDirectory(atPath: state + "/roshambo")) ?? []
    return (bot.terminationStatus, printed, files.map { state + "/roshambo/" + $0 })
  }

  @Test("an honest round is marked verified, and no evidence is written")
  func honest() async throws {
    let (_, printed, files) = try await play(against: .none)
    #expect(printed.contains("round 1: ") && printed.contains("✓ verified"), "\(printed)")
    #expect(files.isEmpty)
  }

  @Test(
    "a lie about the opponent's round stops the match, says so, and keeps the evidence",
    arguments: [
      (CheatingServer.Lie.swapDigest, "commitment changed after it was shown"),
      (CheatingServer.Lie.otherWeapon, "does not match the commitment shown"),
      (CheatingServer.Lie.otherRoomFirst, "broke off round 1"),
      (CheatingServer.Lie.backToWaiting, "broke off round 1"),
      (CheatingServer.Lie.matchToOpponent, "the rounds it reported give"),
      (CheatingServer.Lie.revealMissing, "showed your reveal as received"),
    ])
  func caught(lie: CheatingServer.Lie, reason: String) async throws {
    let (status, printed, files) = try await play(against: lie, strategy: "rock")
    #expect(status == 76, "\(printed)")
    #expect(printed.contains("THE SERVER LIED") && printed.contains(reason), "\(printed)")
    #expect(printed.contains("cheated"), "\(printed)")
    let file = try #require(files.first, "no evidence file: \(printed)")
    #expect(files.count == 1)
    #expect(printed.contains(file), "the file is named: \(printed)")
    let evidence = try String(contentsOfFile: file, encoding: .utf8)
    #expect(evidence.contains(reason))
    #expect(evidence.contains("\"opponentCommitmentShown\""))
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
  }
}
