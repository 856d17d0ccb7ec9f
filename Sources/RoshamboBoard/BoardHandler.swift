import NIOCore
import NIOHTTP1

/// One connection of the board's port: one GET answered (the page, a file of it, a
/// match's record, or the event stream), then closed, except the stream, which stays
/// until the viewer or the server goes.
///
/// Invariant: it answers one request at most, and only once it is complete; every answer
/// carries the board's security headers.
final class BoardHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let stream: BoardStream
  private let records: BoardRecords
  private var route: BoardRoute?
  private var answered = false
  private var streaming = false

  init(stream: BoardStream, records: BoardRecords) {
    self.stream = stream
    self.records = records
  }

  /// What every answer says: scripts only from the page's own files (never inline, so a
  /// name can never run as one), no sniffing of types, no caching of the live page.
  static let securityHeaders: [(String, String)] = [
    ("Content-Security-Policy", "default-src 'self'; script-src 'self'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
  ]

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      guard route == nil, !answered else { return }
      let headerBytes = head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
      route = BoardRoute(method: head.method.rawValue, uri: head.uri, headerBytes: headerBytes)
    case .body:
      break
    case .end:
      guard let route, !answered else { return }
      answered = true
      answer(route, context: context)
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    // No complete request in time: the connection goes (a stream is never idle-closed).
    if event is IdleStateHandler.IdleStateEvent, !streaming {
      context.close(promise: nil)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  private func answer(_ route: BoardRoute, context: ChannelHandlerContext) {
    switch route {
    case .asset(let asset):
      respond(.ok, type: asset.contentType, body: asset.bytes, context: context)
    case .events:
      guard let _ = stream.open(context.channel) else {
        respond(
          .serviceUnavailable, type: "text/plain; charset=utf-8",
          body: Array("The board has as many viewers as it takes; try again later.\n".utf8),
          context: context)
        return
      }
      streaming = true
      var headers = Self.headers(type: "text/event-stream")
      headers.replaceOrAdd(name: "Connection", value: "keep-alive")
      context.write(wrapOutboundOut(.head(.init(version: .http1_1, status: .ok, headers: headers))))
        .assumeIsolated().whenFailure { _ in context.close(promise: nil) }
      context.writeAndFlush(wrapOutboundOut(BoardStream.part(stream.welcome)), promise: nil)
    case .replay:
      respond(
        .ok, type: BoardAsset.replayPage.contentType, body: BoardAsset.replayPage.bytes,
        context: context)
    case .record(let match):
      guard let asked = records.record(of: match) else {
        respond(BoardRecordReply.boardBusy(match: match), context: context)
        return
      }
      asked.assumeIsolated().whenSuccess { outcome in
        // A viewer that went meanwhile is answered nothing.
        guard context.channel.isActive else { return }
        self.respond(BoardRecordReply(outcome, match: match), context: context)
      }
    case .notFound:
      respond(
        .notFound, type: "text/plain; charset=utf-8",
        body: Array("Nothing here: the board is at /.\n".utf8), context: context)
    case .notAMatchNumber:
      respond(
        .notFound, type: "text/plain; charset=utf-8",
        body: Array(
          "No such match: a match's page is /match/N, N its number (1, 2, 3, …).\n".utf8),
        context: context)
    case .methodNotAllowed:
      respond(
        .methodNotAllowed, type: "text/plain; charset=utf-8",
        body: Array("The board only shows: GET it.\n".utf8), extra: [("Allow", "GET")],
        context: context)
    case .headersTooLarge:
      respond(
        .requestHeaderFieldsTooLarge, type: "text/plain; charset=utf-8",
        body: Array("The request's headers are too large.\n".utf8), context: context)
    }
  }

  private func respond(_ reply: BoardRecordReply, context: ChannelHandlerContext) {
    let retry = reply.status == .serviceUnavailable ? [("Retry-After", "1")] : []
    respond(
      HTTPResponseStatus(statusCode: reply.status.rawValue),
      type: "application/json; charset=utf-8", body: reply.body, extra: retry, context: context)
  }

  private static func headers(type: String) -> HTTPHeaders {
    var headers = HTTPHeaders(securityHeaders)
    headers.add(name: "Content-Type", value: type)
    return headers
  }

  private func respond(
    _ status: HTTPResponseStatus, type: String, body: [UInt8], extra: [(String, String)] = [],
    context: ChannelHandlerContext
  ) {
    var headers = Self.headers(type: type)
    for (name, value) in extra { headers.add(name: name, value: value) }
    headers.add(name: "Content-Length", value: "\(body.count)")
    headers.add(name: "Connection", value: "close")
    context.write(
      wrapOutboundOut(.head(.init(version: .http1_1, status: status, headers: headers))),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
      context.close(promise: nil)
    }
  }
}
