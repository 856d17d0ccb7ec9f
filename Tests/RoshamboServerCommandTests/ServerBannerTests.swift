import RoshamboGame
import RoshamboServer
import Testing

@testable import roshambo_server

/// What `roshambo-server` prints once it listens, from the configuration and what binding
/// gave (no socket).
@Suite("roshambo-server's banner")
struct ServerBannerTests {
  let listening = ServerBanner.Listening(
    port: 7443, code: "QUIET-OTTER-17", fingerprint: "AB:CD:EF", operationsPort: nil,
    isAnnouncing: false)

  func banner(host: String, caFile: String? = "certs/ca.pem") -> ServerBanner {
    var configuration = ServerConfiguration(
      certificateChainFile: "", privateKeyFile: "", dataDirectory: nil)
    configuration.host = host
    return ServerBanner(configuration, caFile: caFile)
  }

  @Test("names the host, the port, the fingerprint and the identity code")
  func namesWhatPlayersCheck() {
    let lines = banner(host: "0.0.0.0").lines(listening) { ["192.168.1.20", "fe80::1"] }
    #expect(
      lines == [
        "roshambo-server listening on 0.0.0.0:7443 (TLS 1.3; classic, best of 3)",
        "identity code: QUIET-OTTER-17 (players compare it when they first connect)",
        "certificate SHA-256 fingerprint: AB:CD:EF",
        "players on other machines run the lobby with (one of):",
        "  roshambo --host 192.168.1.20 --port 7443 --pin AB:CD:EF",
        "  roshambo --host [fe80::1] --port 7443 --pin AB:CD:EF",
        "or copy certs/ca.pem to their machine and use --ca ca.pem",
      ])
  }

  @Test("on loopback, players on this machine are told the one command; no address is looked up")
  func loopback() {
    let lines = banner(host: "127.0.0.1").lines(listening) {
      Issue.record("the local addresses were asked for")
      return []
    }
    #expect(
      lines.suffix(2) == [
        "players on this machine run the lobby with:", "  roshambo --host 127.0.0.1 --port 7443",
      ])
  }

  @Test("one address is the one given; a certificate of the host's own names no CA file")
  func oneAddress() {
    let lines = banner(host: "10.1.2.3", caFile: nil).lines(listening) { ["192.168.1.20"] }
    #expect(
      lines.suffix(3) == [
        "players on other machines run the lobby with (one of):",
        "  roshambo --host 10.1.2.3 --port 7443 --pin AB:CD:EF",
        "or copy your CA file to their machine and use --ca ca.pem",
      ])
  }

  /// A server on every address prints the board at this machine's addresses a TV can
  /// open, never at 0.0.0.0 (a newcomer's TV was sent there).
  @Test("a board on every address is given at this machine's addresses, IPv4 first")
  func boardOnEveryAddress() {
    var bound = listening
    bound.boardPort = 8080
    var configuration = ServerConfiguration(
      certificateChainFile: "", privateKeyFile: "", dataDirectory: nil)
    configuration.host = "0.0.0.0"
    var banner = ServerBanner(configuration, caFile: "certs/ca.pem")
    banner.boardHost = "0.0.0.0"
    var asked = 0
    let lines = banner.lines(bound) {
      asked += 1
      return ["fe80::1", "2001:db8::7", "192.168.1.20"]
    }
    #expect(lines.contains("the party's board on http://192.168.1.20:8080/ (open it on the TV)"))
    #expect(lines.contains("  or http://[2001:db8::7]:8080/"))
    #expect(!lines.joined().contains("0.0.0.0:8080"))
    #expect(!lines.joined().contains("[fe80::1]:8080"))
    #expect(asked == 1, "the addresses are looked up once")
    let alone = ServerBanner.boardLines(host: "::", port: 8080) { [] }
    #expect(alone.first?.hasPrefix("the party's board on http://127.0.0.1:8080/") == true)
    let given = ServerBanner.boardLines(host: "10.0.0.5", port: 8080) {
      Issue.record("the addresses were looked up for a board on one address")
      return []
    }
    #expect(given == ["the party's board on http://10.0.0.5:8080/ (open it on the TV)"])
  }

  @Test("TLS 1.2, fair rooms, the operations endpoint and the announced name are said")
  func everything() {
    var configuration = ServerConfiguration(
      certificateChainFile: "", privateKeyFile: "", dataDirectory: nil)
    configuration.host = "::"
    configuration.allowTLS12 = true
    configuration.roomSettings = RoomState.Settings(
      ruleset: .lizardSpock, bestOf: 5, roundMillis: 0, graceMillis: 0, fair: true)
    configuration.operationsAddress = ("::1", 9464)
    configuration.announceName = "Cellar"
    var bound = listening
    bound.operationsPort = 9464
    bound.isAnnouncing = true
    let lines = ServerBanner(configuration, caFile: "certs/ca.pem").lines(bound) { [] }
    #expect(
      lines == [
        "roshambo-server listening on :::7443 (TLS 1.2 and 1.3; lizardSpock, best of 5, fair rooms)",
        "identity code: QUIET-OTTER-17 (players compare it when they first connect)",
        "certificate SHA-256 fingerprint: AB:CD:EF",
        "operations on http://[::1]:9464 (/metrics, /livez, /readyz)",
        "announcing \"Cellar\" on the local network: players run `roshambo` (the lobby)",
        "players on this machine run the lobby with:",
        "  roshambo --host 127.0.0.1 --port 7443",
      ])
  }
}
