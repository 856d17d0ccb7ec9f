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
/// Stopping and continuing (SIGTSTP, Ctrl-Z, and SIGCONT) have a line of their own, which
/// only a screen that holds the terminal joins (``TerminalSession``): it gives the
/// terminal back before it stops and takes it again after.
///
/// Invariant: a signal reaches exactly one handler, the newest one routed and not yet
/// released; with none, SIGINT, SIGTERM and SIGHUP end the program at once with
/// 128 + the signal's number, as an unhandled signal would, SIGTSTP stops it as by
/// default, and SIGWINCH and SIGCONT are dropped.
@MainActor
public final class ProcessSignals {
  public static let shared = ProcessSignals()

  /// The signals every screen hears.
  public static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
  /// The signals of stopping and continuing, heard by screens that hold the terminal.
  public static let suspension: [Int32] = [SIGTSTP, SIGCONT]

  /// A handler's place in the line: give it back with ``release(_:)``.
  public struct Route: Hashable, Sendable {
    fileprivate let id: Int
  }

  private var sources: [any DispatchSourceSignal] = []
  private var handlers: [(route: Route, handle: (Int32) -> Void)] = []
  private var suspensionHandlers: [(route: Route, handle: (Int32) -> Void)] = []
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

  /// Sends SIGTSTP and SIGCONT to `handle` until it is released or a newer route is made.
  public func routeSuspension(_ handle: @escaping (Int32) -> Void) -> Route {
    installOnce()
    lastID += 1
    let route = Route(id: lastID)
    suspensionHandlers.append((route, handle))
    return route
  }

  public func release(_ route: Route) {
    handlers.removeAll { $0.route == route }
    suspensionHandlers.removeAll { $0.route == route }
  }

  /// Stops the process as SIGTSTP's default action does, and returns once it is
  /// continued: the signal is raised again with its default action, on this thread with
  /// it unblocked, then the disposition the watch had (its own handler, which hears the
  /// next one) is put back whole, not merely ignored: else a second Ctrl-Z went unheard.
  public nonisolated static func stopAsByDefault() {
    var only = sigset_t()
    sigemptyset(&only)
    sigaddset(&only, SIGTSTP)
    var before = sigset_t()
    var byDefault = sigaction()
    byDefault.__sigaction_handler.sa_handler = SIG_DFL
    sigemptyset(&byDefault.sa_mask)
    var watched = sigaction()
    sigaction(SIGTSTP, &byDefault, &watched)
    pthread_sigmask(SIG_UNBLOCK, &only, &before)
    raise(SIGTSTP)
    pthread_sigmask(SIG_SETMASK, &before, nil)
    sigaction(SIGTSTP, &watched, nil)
  }

  /// Whether anyone would hear a signal now.
  public var isRouted: Bool { !handlers.isEmpty }

  /// What a signal does now: the newest handler's call, or the default ending.
  func deliver(_ number: Int32) {
    if Self.suspension.contains(number) {
      if let newest = suspensionHandlers.last {
        newest.handle(number)
      } else if number == SIGTSTP {
        Self.stopAsByDefault()
      }
    } else if let newest = handlers.last {
      newest.handle(number)
    } else if number != SIGWINCH {
      exit(128 + number)
    }
  }

  private func installOnce() {
    guard sources.isEmpty else { return }
    for number in Self.watched + Self.suspension {
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
