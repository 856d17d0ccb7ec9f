import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A plain HTTP/1.1 request, blocking, within 5 s in all: what `roshambo-server status`
/// reads `/metrics` and `/readyz` with, and what the server tells the Agones SDK server
/// beside it (``AgonesLink``).
///
/// Invariant: at most ``maxBytes`` of an answer are read, and a request takes at most
/// ``timeLimit`` from connecting to the answer's last byte, however slowly the other
/// side answers; the error says, in a host's words, what to check.
public enum OperationsClient {
  public static let maxBytes = 8 * 1024 * 1024
  /// How long a request may take in all.
  public static let timeLimit = Duration.seconds(5)

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// GET `path` from `host`:`port`: the status code and the body.
  public static func get(host: String, port: Int, path: String) throws(Failure) -> (
    status: Int, body: String
  ) {
    try request("GET", host: host, port: port, path: path)
  }

  /// `method` `path` on `host`:`port`, with a JSON `body` if given: the status code and
  /// the body of the answer. `advice` ends the message when nothing answers.
  public static func request(
    _ method: String, host: String, port: Int, path: String, body: String? = nil,
    advice: String? = nil
  ) throws(Failure) -> (status: Int, body: String) {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
      throw Failure(description: "no such host: \(host)")
    }
    defer { freeaddrinfo(found) }
    let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, 0)
    guard fd >= 0 else { throw Failure(description: "cannot open a socket") }
    defer { close(fd) }
    let start = ContinuousClock.now
    let late = Failure(description: "\(host):\(port) did not answer within 5 s")
    /// Sets the socket's send and receive limits to what is left; false once nothing is.
    func limitToTimeLeft() -> Bool {
      let left = timeLimit - (ContinuousClock.now - start)
      guard left > .zero else { return false }
      let micros = max(
        1, left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000)
      var timeout = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      return true
    }
    _ = limitToTimeLeft()
    // Linux bounds a blocking connect by the send limit.
    guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
      if errno == EINPROGRESS || errno == EAGAIN { throw late }
      throw Failure(
        description:
          "nothing answers on \(host):\(port) (\(String(cString: strerror(errno)))): "
          + (advice ?? "is the server running with --metrics-address \(host):\(port)?"))
    }
    let content =
      body.map {
        "Content-Type: application/json\r\nContent-Length: \($0.utf8.count)\r\n\r\n\($0)"
      } ?? "\r\n"
    let request = Array(
      "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\(content)".utf8)
    guard limitToTimeLeft() else { throw late }
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while received.count < maxBytes {
      guard limitToTimeLeft() else { throw late }
      let count = recv(fd, &buffer, buffer.count, 0)
      if count < 0 { throw late }
      if count == 0 { break }
      received += buffer[0..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    let parts = text.components(separatedBy: "\r\n\r\n")
    guard let statusLine = parts.first?.split(separator: "\r\n").first,
      let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else {
      throw Failure(
        description: "\(host):\(port) did not answer in HTTP: is it the operations port?")
    }
    return (status, parts.dropFirst().joined(separator: "\r\n\r\n"))
  }
}
