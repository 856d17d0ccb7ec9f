import Foundation
import RoshamboCrypto
import RoshamboGame
import RoshamboProtocol

/// The file a client writes when it catches a server lying about a fair round: every
/// value the verdict was reached from, as JSON, so that anyone can check it again with
/// SHA-256 and the layout in docs/PROTOCOL.md.
///
/// Invariant: the file is created new (never overwriting another) with mode 0600.
public enum EvidenceFile {
  /// `$XDG_STATE_HOME/roshambo`, else `~/.local/state/roshambo`, else the temporary
  /// directory.
  public static func defaultDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return state + "/roshambo"
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return home + "/.local/state/roshambo"
    }
    return NSTemporaryDirectory() + "roshambo"
  }

  /// Writes `evidence` in `directory`; returns the file's path. The file's name comes
  /// from ``fileName(room:round:stamp:)``, never from the room's name as sent.
  public static func write(_ evidence: FairPlay.Evidence, in directory: String) throws -> String {
    try PrivateFile.create(Data(json(evidence).utf8), in: directory) { stamp in
      fileName(room: evidence.room, round: evidence.round, stamp: stamp)
    }
  }

  /// `evidence-ROOM-roundN-STAMP.json`, where ROOM is the room's name when it keeps the
  /// protocol's room rule (`[A-Za-z0-9_-]{1,32}`), else `room-` and the first 16 hex
  /// digits of its SHA-256: a name from a server can never leave the directory, nor be
  /// too long for the file system.
  public static func fileName(room: String, round: Int, stamp: Int64) -> String {
    "evidence-\(PrivateFile.safeName(room))-round\(round)-\(stamp).json"
  }

  /// The evidence as a JSON object (stable key order, for people and scripts).
  public static func json(_ evidence: FairPlay.Evidence) -> String {
    func string(_ text: String?) -> String {
      guard let text else { return "null" }
      var out = "\""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20:
          out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
      }
      return out + "\""
    }
    func list(_ values: [String?]) -> String {
      "[" + values.map(string).joined(separator: ",") + "]"
    }
    let reported = evidence.reported
    let match =
      evidence.reportedMatch.map { match in
        """
          "reportedMatch": {
            "scores": [\(match.scores.map(String.init).joined(separator: ","))],
            "winner": \(match.winner?.rawValue ?? 0)
          },

        """
      } ?? ""
    return """
      {
        "what": "a roshambo server reported a fair round that its commitments contradict",
        "reason": \(string(evidence.reason)),
        "room": \(string(evidence.room)),
        "round": \(evidence.round),
        "seat": \(evidence.seat.map { String($0.rawValue) } ?? "null"),
        "yourWeapon": \(string(evidence.secret?.weapon.rawValue)),
        "yourNonce": \(string(evidence.secret?.nonce)),
        "yourCommitment": \(string(evidence.secret?.digest)),
        "opponentCommitmentShown": \(string(evidence.opponentCommitmentShown)),
        "reported": {
          "weapons": \(list(reported.weapons.map { $0?.rawValue })),
          "winner": \(reported.winner?.rawValue ?? 0),
          "commitments": \(list(reported.commitments)),
          "nonces": \(list(reported.nonces))
        },
      \(match)  "layout": "SHA-256 of \\"roshambo-commit-v1\\" 0 room 0 round 0 seat 0 weapon 0 nonce (32 bytes)"
      }

      """
  }
}
