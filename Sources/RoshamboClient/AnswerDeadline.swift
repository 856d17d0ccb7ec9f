import NIOConcurrencyHelpers

/// The server took a one-shot request (`roshambo who`, `roshambo replay N`) and sent no
/// answer in time.
public struct NoAnswer: Error, CustomStringConvertible {
  /// What was asked, as words that follow "for": "the lobby", "match 7".
  public var request: String
  public var limit: Duration

  public var description: String {
    "no answer within \(limit.components.seconds) s for \(request): the server took the "
      + "connection but sent nothing back (it may be overloaded, or not a Roshambo server); "
      + "try again later"
  }
}

extension ServerConnection {
  /// What `body` returns, if it ends within `limit`; otherwise the connection is closed
  /// (which ends `body`) and ``NoAnswer`` is thrown, whatever `body` then returned or
  /// threw. For requests that wait for one answer: a server that says nothing must not
  /// keep them waiting for ever.
  public func answering<T>(
    _ request: String, within limit: Duration = .seconds(10),
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
  ) async throws -> T {
    let expired = NIOLockedValueBox<Bool?>(false)  // nil once `body` ended in time
    let watch = Task {
      try await Task.sleep(for: limit)
      guard
        expired.withLockedValue({ state in
          guard state == false else { return false }
          state = true
          return true
        })
      else { return }
      await self.close()
    }
    defer { watch.cancel() }
    let result: Result<T, any Error>
    do {
      result = .success(try await body())
    } catch {
      result = .failure(error)
    }
    let late = expired.withLockedValue { state in
      defer { state = nil }
      return state == true
    }
    if late { throw NoAnswer(request: request, limit: limit) }
    return try result.get()
  }
}
