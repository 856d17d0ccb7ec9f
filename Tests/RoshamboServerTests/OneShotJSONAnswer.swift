import NIOCore
import NIOHTTP1

/// The Agones stand-ins' answer to one request: `json` with `status`, then the connection
/// closed (each call of the game's is a connection of its own).
func answerOnceWithJSON(
  _ context: ChannelHandlerContext, status: HTTPResponseStatus, _ json: String
) {
  var headers = HTTPHeaders()
  headers.add(name: "Content-Type", value: "application/json")
  headers.add(name: "Content-Length", value: "\(json.utf8.count)")
  headers.add(name: "Connection", value: "close")
  let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
  context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
  context.write(
    NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: json)))), promise: nil)
  let channel = context.channel
  context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
    channel.close(promise: nil)
  }
}
