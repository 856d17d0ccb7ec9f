import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The running server's door for tools that read its journal (`roshambo-server history`
/// and `replay`): a Unix socket, `journal.sock` in the data directory, that answers one
/// ``JournalQuestion`` a connection. The server holds its journal to itself while it runs
/// (its commits take no system lock), so a tool asks here first and opens the file only
/// when nobody answers. A part of the server's `ServiceGroup`.
///
/// Invariant: only the data directory's owner can reach it (the socket is mode 0600, in a
/// directory the journal keeps at 0700); questions are answered on the journal's
/// low-priority thread, never the game's, one connection at a time reading at most
/// ``JournalQuestion/maxBytes``; a connection that asks nothing within 10 s is closed.
public final class JournalSocket: Sendable {
  /// The socket's file name in the data directory.
  public static let fileName = "journal.sock"

  /// The socket's path for the journal in `dataDirectory`.
  public static func path(in dataDirectory: String) -> String {
    (dataDirectory as NSString).appendingPathComponent(fileName)
  }

  /// Whether `path` fits in a Unix socket's address (108 bytes with its terminating zero).
  static func fits(_ path: String) -> Bool { path.utf8.count < 108 }

  private let channel: any Channel
  private let group: MultiThreadedEventLoopGroup
  public let path: String

  private init(channel: any Channel, group: MultiThreadedEventLoopGroup, path: String) {
    self.channel = channel
    self.group = group
    self.path = path
  }

  /// Why the socket is not there.
  public struct Unavailable: Error, CustomStringConvertible {
    public var description: String
  }

  /// Listens at `journal.sock` in the data directory of `journal`, replacing a socket a
  /// server that ended left there (the journal's lock, taken before, says no other
  /// server uses the directory).
  package static func start(journal: JournalThread, logger: Logger) async throws
    -> JournalSocket
  {
    let path = path(in: (journal.path as NSString).deletingLastPathComponent)
    guard fits(path) else {
      throw Unavailable(
        description:
          "its path, \(path), is longer than a local socket's address may be (107 bytes)")
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let channel: any Channel
    do {
      channel = try await ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 16)
        .childChannelOption(.allowRemoteHalfClosure, value: true)
        .childChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              IdleStateHandler(readTimeout: .seconds(10)))
            try channel.pipeline.syncOperations.addHandler(
              JournalSocketHandler(answer: journal.answer))
          }
        }
        .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
      guard chmod(path, 0o600) == 0 else {
        throw Unavailable(description: "cannot make \(path) private (errno \(errno))")
      }
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
    logger.info("journal socket listening", metadata: ["path": "\(path)"])
    return JournalSocket(channel: channel, group: group, path: path)
  }

  /// Stops listening and removes the socket's file.
  func close() async {
    try? await channel.close()
    try? await group.shutdownGracefully()
    unlink(path)
  }
}

extension JournalSocket: Service {
  /// Answers until the group's shutdown reaches it (after the drain).
  public func run() async throws {
    try? await gracefulShutdown()
    await close()
  }
}

/// One connection to the ``JournalSocket``: reads a question (a line of JSON), writes the
/// answer (a line of JSON) and closes.
///
/// Invariant: at most one answer a connection, and it is always written: a question that
/// cannot be read is answered with a complaint saying so.
final class JournalSocketHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Where a question is answered (the journal's thread).
  private let answerer: @Sendable (JournalQuestion) -> EventLoopFuture<JournalAnswer>
  private var received: [UInt8] = []
  private var asked = false

  init(answer: @escaping @Sendable (JournalQuestion) -> EventLoopFuture<JournalAnswer>) {
    answerer = answer
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !asked else { return }
    var buffer = unwrapInboundIn(data)
    received += buffer.readBytes(length: buffer.readableBytes) ?? []
    if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
      ask(context: context, Array(received[..<end]))
    } else if received.count > JournalQuestion.maxBytes {
      answer(
        context: context,
        JournalAnswer(
          status: JournalAnswer.usage,
          complaint: "the question is longer than \(JournalQuestion.maxBytes) bytes"))
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is IdleStateHandler.IdleStateEvent, !asked {
      context.close(promise: nil)
    } else if case .some(.inputClosed) = event as? ChannelEvent, !asked {
      ask(context: context, received)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func ask(context: ChannelHandlerContext, _ line: [UInt8]) {
    guard let question = try? JSONDecoder().decode(JournalQuestion.self, from: Data(line)) else {
      answer(
        context: context,
        JournalAnswer(
          status: JournalAnswer.usage,
          complaint: "the server could not read the question (is the tool from another release?)"
        ))
      return
    }
    asked = true
    let loop = context.eventLoop
    let bound = NIOLoopBound((self, context), eventLoop: loop)
    answerer(question).hop(to: loop).whenComplete { result in
      let (handler, context) = bound.value
      switch result {
      case .success(let answer):
        handler.answer(context: context, answer)
      case .failure(let error):
        handler.answer(
          context: context,
          JournalAnswer(
            status: JournalAnswer.unavailable,
            complaint: "the server could not read its journal: \(error)"))
      }
    }
  }

  private func answer(context: ChannelHandlerContext, _ answer: JournalAnswer) {
    asked = true
    var bytes = (try? JSONEncoder().encode(answer)).map { Array($0) } ?? []
    bytes.append(UInt8(ascii: "\n"))
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes))).whenComplete { _ in
      bound.value.close(promise: nil)
    }
  }
}

extension JournalSocket {
  /// What became of asking the server that holds a journal.
  public enum Asked: Sendable, Equatable {
    case answered(JournalAnswer)
    /// Nobody listens at the socket (no server runs on the directory, or it ended).
    case noServer
  }

  /// Asks `question` of the server running on `dataDirectory`, waiting at most `timeout`
  /// seconds for its answer. Throws ``Unavailable`` when a server is there but the
  /// question cannot be asked or answered.
  public static func ask(
    _ question: JournalQuestion, dataDirectory: String, timeout: Int = 60
  ) throws -> Asked {
    let path = path(in: dataDirectory)
    guard fits(path) else { return .noServer }
    let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else {
      throw Unavailable(description: "cannot make a local socket (errno \(errno))")
    }
    defer { Glibc.close(socket) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: path.utf8)
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      let code = errno
      if code == ENOENT || code == ECONNREFUSED { return .noServer }
      throw Unavailable(
        description: "cannot reach \(path): \(String(cString: strerror(code)))")
    }
    var wait = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    var request = Array(try JSONEncoder().encode(question))
    request.append(UInt8(ascii: "\n"))
    var sent = 0
    while sent < request.count {
      let written = request[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
      guard written > 0 else {
        throw Unavailable(description: "the server at \(path) stopped listening mid-question")
      }
      sent += written
    }
    var reply: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
      if count == 0 { break }
      guard count > 0 else {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK {
          throw Unavailable(description: "the server at \(path) did not answer within \(timeout) s")
        }
        if code == EINTR { continue }
        throw Unavailable(
          description:
            "the server at \(path) broke off its answer: \(String(cString: strerror(code)))")
      }
      reply += chunk[..<count]
    }
    guard let answer = try? JSONDecoder().decode(JournalAnswer.self, from: Data(reply)) else {
      throw Unavailable(
        description: "the server at \(path) answered what this tool cannot read "
          + "(\(reply.isEmpty ? "nothing" : "\(reply.count) bytes")); is it from another release?")
    }
    return .answered(answer)
  }
}
