import Foundation

/// The terminal's keys for the whole process: one thread reads standard input and hands
/// each byte to whichever screen holds the keys now, on the main actor. Screens come and
/// go (the lobby, a match, the lobby again) while the one reader stays, so no key is
/// read by a screen that has gone.
///
/// Invariant: at most one reading thread, started the first time a screen takes the
/// keys; a key pressed while no screen holds them is dropped.
@MainActor
public enum KeyInput {
  private static var handler: ((UInt8) -> Void)?
  private static var started = false

  /// From now on keys go to `handle` (replacing whoever had them).
  public static func take(_ handle: @escaping (UInt8) -> Void) {
    handler = handle
    guard !started else { return }
    started = true
    let thread = Thread {
      while let key = Terminal.readKey() {
        Task { @MainActor in KeyInput.handler?(key) }
      }
    }
    thread.start()
  }

  /// Keys go nowhere until a screen takes them again.
  public static func release() {
    handler = nil
  }
}
