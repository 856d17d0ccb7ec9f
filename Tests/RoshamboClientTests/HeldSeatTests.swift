import Foundation
import RoshamboClient
import Testing

/// The seat kept on disk while a match runs, for coming back after a closed terminal.
@Suite("Client: the seat kept for coming back")
struct HeldSeatTests {
  func directory() -> String {
    NSTemporaryDirectory() + "roshambo-seats-\(getpid())-\(UUID().uuidString)/seats"
  }

  @Test("kept privately per server and name, read back, forgotten")
  func roundTrip() throws {
    let directory = directory()
    let path = HeldSeat.path(in: directory, host: "192.168.1.20", port: 7443, name: "Bob")
    #expect(HeldSeat.read(at: path, name: "Bob") == nil)
    let seat = HeldSeat(name: "Bob", room: "duel-3", token: "00ff00ff00ff00ff00ff00ff00ff00ff")
    try seat.write(to: path)
    #expect(HeldSeat.read(at: path, name: "Bob") == seat)
    // Only the player can read it, in a folder only the player can open.
    let file = try FileManager.default.attributesOfItem(atPath: path)
    let folder = try FileManager.default.attributesOfItem(atPath: directory)
    #expect((file[.posixPermissions] as? Int) == 0o600)
    #expect((folder[.posixPermissions] as? Int) == 0o700)
    // Another server, or another name on this one, is another file.
    #expect(HeldSeat.path(in: directory, host: "192.168.1.20", port: 7444, name: "Bob") != path)
    #expect(HeldSeat.path(in: directory, host: "192.168.1.20", port: 7443, name: "Carol") != path)
    #expect(!path.contains("192.168"))
    HeldSeat.forget(at: path)
    #expect(HeldSeat.read(at: path, name: "Bob") == nil)
  }

  @Test("a file that breaks the rules holds no seat and is removed")
  func damaged() throws {
    let directory = directory()
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for text in [
      "Bob\nduel 3\n00ff\n", "Bob\nduel-3\nno spaces allowed\n", "Bob\nduel-3\n", "",
      "Carol\nduel-3\n00ff\n", "Bob\nduel-3\n\u{1B}]52;c;x\u{07}\n",
    ] {
      let path = directory + "/seat"
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      #expect(HeldSeat.read(at: path, name: "Bob") == nil, "\(text.debugDescription)")
      #expect(!FileManager.default.fileExists(atPath: path), "\(text.debugDescription)")
    }
  }
}
