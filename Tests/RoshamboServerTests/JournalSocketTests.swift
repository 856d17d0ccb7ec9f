import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboJournal

@Suite("The journal's socket: asking the server that holds its journal", .serialized)
struct JournalSocketTests {
  /// The answer written on `channel`, decoded, and whether the channel was closed after.
  func written(_ channel: EmbeddedChannel) throws -> (JournalAnswer, closed: Bool) {
    var buffer = try #require(try channel.readOutbound(as: ByteBuffer.self))
    let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
    #expect(bytes.last == UInt8(ascii: "\n"))
    let answer = try JSONDecoder().decode(JournalAnswer.self, from: Data(bytes))
    return (answer, !channel.isActive)
  }

  @Test("a question is read to its line's end, answered once, and the connection closed")
  func answeredOnce() throws {
    let asked = NIOLockedValueBox<[JournalQuestion]>([])
    let channel = EmbeddedChannel()
    let loop = channel.embeddedEventLoop
    try channel.pipeline.syncOperations.addHandler(
      JournalSocketHandler { question in
        asked.withLockedValue { $0.append(question) }
        return loop.makeSucceededFuture(JournalAnswer(printed: "1 match"))
      })
    let question = JournalQuestion(
      .matches(MatchHistory.Filter(player: "Ann", limit: 5), json: false), timeZone: "UTC")
    var line = Array(try JSONEncoder().encode(question))
    // In two pieces, the second with the line's end and what a client should not send.
    try channel.writeInbound(ByteBuffer(bytes: line[..<10]))
    #expect(asked.withLockedValue { $0 }.isEmpty)
    line = Array(line[10...]) + Array("\n{\"kind\":".utf8)
    try channel.writeInbound(ByteBuffer(bytes: line))
    #expect(asked.withLockedValue { $0 } == [question])
    let (answer, closed) = try written(channel)
    #expect(answer == JournalAnswer(printed: "1 match"))
    #expect(closed)
    #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
  }

  @Test("what is not a question, or is too long for one, is answered with what went wrong")
  func badQuestions() throws {
    for (sent, complaint) in [
      (Array("history please\n".utf8), "could not read the question"),
      ([UInt8](repeating: UInt8(ascii: "a"), count: JournalQuestion.maxBytes + 1), "longer than"),
    ] {
      let channel = EmbeddedChannel()
      let loop = channel.embeddedEventLoop
      try channel.pipeline.syncOperations.addHandler(
        JournalSocketHandler { _ in
          Issue.record("a bad question reached the journal")
          return loop.makeSucceededFuture(JournalAnswer())
        })
      try channel.writeInbound(ByteBuffer(bytes: sent))
      let (answer, closed) = try written(channel)
      #expect(answer.status == JournalAnswer.usage)
      #expect(answer.complaint?.contains(complaint) == true, "\(answer)")
      #expect(closed)
    }
  }

  @Test("a journal that fails to answer is said, not a silent close")
  func failedRead() throws {
    struct Broken: Error, CustomStringConvertible { var description: String { "disk I/O error" } }
    let channel = EmbeddedChannel()
    let loop = channel.embeddedEventLoop
    try channel.pipeline.syncOperations.addHandler(
      JournalSocketHandler { _ in loop.makeFailedFuture(Broken()) })
    var line = Array(try JSONEncoder().encode(JournalQuestion(.lobby(until: nil))))
    line.append(UInt8(ascii: "\n"))
    try channel.writeInbound(ByteBuffer(bytes: line))
    let (answer, _) = try written(channel)
    #expect(answer.status == JournalAnswer.unavailable)
    #expect(answer.complaint == "the server could not read its journal: disk I/O error")
  }

  @Test(
    "history and replay while the server runs ask it; after a kill they read the file; a second server is refused",
    .timeLimit(.minutes(3)))
  func historyBesideARunningServer() async throws {
    let data = temporaryDataDirectory()
    let arguments = [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", data,
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--log-level", "warning",
    ]
    let server = try ServerProcess(arguments)
    let port = try await server.port
    let (alice, bob) = try await seatTwo(port: port)
    _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    let (final, _) = try await playRound(alice, .paper, bob, .rock, round: 2)
    #expect(final.phase == .over)

    // The server holds the journal: asked, it answers.
    let (status, report) = await (try ServerProcess(["history", "--data-dir", data])).finish()
    #expect(status == 0, "\(report)")
    #expect(report.contains("\"Alice\" 2–0 \"Bob\"  winner: \"Alice\""), "\(report)")
    #expect(report.contains("(asked the server running on \(data)/"), "\(report)")
    let (recordStatus, record) = await
      (try ServerProcess(
        ["history", "1", "--json", "--data-dir", data]
      )).finish()
    #expect(recordStatus == 0, "\(record)")
    let line = try #require(record.split(separator: "\n").first { $0.hasPrefix("{") })
    #expect(try MatchRecord.decode(Array(line.utf8)).players == ["Alice", "Bob"], "\(record)")
    let (missingStatus, missing) = await (try ServerProcess(["history", "9", "--data-dir", data]))
      .finish()
    #expect(missingStatus == 66)
    #expect(missing.contains("no match 9 is kept in \(data)/"), "\(missing)")
    let (replayStatus, lobby) = await (try ServerProcess(["replay", "--data-dir", data])).finish()
    #expect(replayStatus == 0, "\(lobby)")
    #expect(lobby.contains("den"), "\(lobby)")

    // Nobody else opens the file meanwhile: a second server on it is told why.
    let second = try ServerProcess(arguments)
    let (secondStatus, refused) = await second.finish()
    #expect(secondStatus != 0)
    #expect(refused.contains("is in use by another process"), "\(refused)")

    // Killed, it leaves its socket behind: nobody answers there, so the file is read.
    kill(server.process.processIdentifier, SIGKILL)
    _ = await server.finish()
    #expect(FileManager.default.fileExists(atPath: JournalSocket.path(in: data)))
    let (afterStatus, after) = await (try ServerProcess(["history", "--data-dir", data])).finish()
    #expect(afterStatus == 0, "\(after)")
    #expect(after.contains("\"Alice\" 2–0 \"Bob\""), "\(after)")
    #expect(
      after.contains("(read \(data)/roshambo.sqlite: no server is running on it)"), "\(after)")
  }
}
