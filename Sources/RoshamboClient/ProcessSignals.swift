import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The program's one watch on SIGINT, SIGTERM, SIGHUP and SIGWINCH, shared by every
/// screen and bot the program runs one after another: each signal goes to whoever is in
/// front now.
///
/// The sources are made once and never cancelled: libdispatch on Linux never again
/// delivers a signal to a source made after an earlier source for it was cancelled, so a
/// screen that made its own and cancelled them on the way out left every later screen
/// deaf to Ctrl-C and to a closed terminal.
///
/// Invariant: a signal reaches exactly one handler, the newest one routed and not yet
/// released; with none, SIGINT, SIGTERM and SIGHUP end the program at once with
/// 128 + the signal's number, as an unhandled signal would, and SIGWINCH is dropped.
@MainActor
public final class ProcessSignals {
  public static let shared = ProcessSignals()

  /// The signals every screen hears.
  public static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

  /// A handler's place in the line: give it back with ``release(_:)``.
  public struct Route: Hashable, Sendable {
    fileprivate let id: Int
  }

  private var sources: [any DispatchSourceSignal] = []
  private var handlers: [(route: Route, handle: (Int32) -> Void)] = []
  private var lastID = 0

  private init() {}

  /// Sends every watched signal to `handle` until it is released or a newer route is
  /// made (and again once that one is released).
  public func route(_ handle: @escaping (Int32) -> Void) -> Route {
    installOnce()
    lastID += 1
    let route = Route(id: lastID)
    handlers.append((route, handle))
    return route
  }

  public func release(_ route: Route) {
    handlers.removeAll { $0.route == route }
  }

  /// Whether anyone would hear a signal now.
  public var isRouted: Bool { !handlers.isEmpty }

  /// What a signal does now: the newest handler's call, or the default ending.
  func deliver(_ number: Int32) {
    if let newest = handlers.last {
      newest.handle(number)
    } else if number != SIGWINCH {
      exit(128 + number)
    }
  }

  private func installOnce() {
    guard sources.isEmpty else { return }
    for number in Self.watched {
      // Ignored as a disposition, so that only the source sees it.
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler { [weak self] in
        MainActor.assumeIsolated { self?.deliver(number) }
      }
      source.resume()
      sources.append(source)
    }
  }
}
