import Foundation
import RoshamboGame
import RoshamboProtocol

/// How the journal writes and reads its rows (one lobby action each) and its snapshot
/// (the whole lobby): the one place both directions live, so the fuzz targets and the
/// tests exercise exactly what `Journal` runs.
///
/// Invariant: whatever ``action(from:)`` reads, ``bytes(of:)`` writes back as the same
/// action (and likewise for the lobby).
public enum JournalFormat {
  /// A row's bytes for `action`.
  public static func bytes(of action: LobbyAction) -> [UInt8] {
    var json = JSONText(capacity: 128)
    json.lobbyAction(action)
    return json.bytes
  }

  /// The action a row holds; throws what the decoder found wrong.
  public static func action(from bytes: some Collection<UInt8>) throws -> LobbyAction {
    try JSONDecoder().decode(LobbyAction.self, from: Data(bytes))
  }

  /// A snapshot's bytes for `lobby`.
  public static func bytes(of lobby: LobbyState) -> [UInt8] {
    var json = JSONText(capacity: 64 + 512 * lobby.rooms.count)
    json.lobby(lobby)
    return json.bytes
  }

  /// The lobby a snapshot holds; throws what the decoder found wrong.
  public static func lobby(from bytes: some Collection<UInt8>) throws -> LobbyState {
    try JSONDecoder().decode(LobbyState.self, from: Data(bytes))
  }
}
