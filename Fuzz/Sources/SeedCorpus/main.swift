// Writes the seed corpora into Fuzz/Corpus/<target>/: valid messages of every type, a
// whole recorded match (as the server sends it and as the clients send it), journal
// rows and a snapshot of a lobby in play. Run from the Fuzz folder:
// `swift run make-seeds`. The examples from docs/PROTOCOL.md are added by
// scripts/fuzz.sh seeds.
import Foundation
import NIOCore
import NIOEmbedded
import RoshamboGame
import RoshamboJournalFormat
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS

let root = FileManager.default.currentDirectoryPath + "/Corpus"

func frame(_ payload: [UInt8]) -> [UInt8] {
  Array(buffer: ByteBuffer.frame(payload))
}

func write(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
  let folder = root + "/" + target
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
}

// A whole lizard–Spock match, as both sides see it.
var lobby = LobbyState(defaults: .init(ruleset: .lizardSpock, bestOf: 3))
var clientFrames: [[UInt8]] = []
var serverFrames: [[UInt8]] = [
  ServerMessage.welcome(room: "den", seat: .one, token: "tok").encoded()
]
var rows: [[UInt8]] = []
var seq = 0
@MainActor func perform(_ action: LobbyAction) {
  guard lobby.apply(action) == nil else { return }
  rows.append(JournalFormat.bytes(of: action))
  seq += 1
  if let room = lobby.rooms["den"] {
    serverFrames.append(ServerMessage.state(seq: seq, view: room.view(for: .one)).encoded())
  }
}
clientFrames.append(
  ClientMessage.hello(
    protocol: WireProtocol.version, name: "Alice", role: .player, room: "den", resume: nil, id: 1
  )
  .encoded())
perform(.join(room: "den", name: "Alice", token: "a", at: 0))
clientFrames.append(
  ClientMessage.hello(
    protocol: WireProtocol.version, name: "石頭", role: .player, room: "den", resume: "r", id: 2
  )
  .encoded())
perform(.join(room: "den", name: "石頭", token: "b", at: 0))
perform(.spectate(room: "den"))
for (round, (a, b)) in [(Weapon.rock, Weapon.rock), (.lizard, .spock), (.spock, .scissors)]
  .enumerated()
{
  clientFrames.append(ClientMessage.choose(round: round + 1, weapon: a, id: 10 + round).encoded())
  perform(.room("den", .chose(seat: .one, round: round + 1, weapon: a, at: 100)))
  clientFrames.append(ClientMessage.choose(round: round + 1, weapon: b, id: 20 + round).encoded())
  perform(.room("den", .chose(seat: .two, round: round + 1, weapon: b, at: 200)))
}
clientFrames.append(ClientMessage.rematch(id: 30).encoded())
perform(.room("den", .rematchRequested(seat: .one, at: 300)))
clientFrames.append(ClientMessage.ping(id: 31).encoded())
clientFrames.append(ClientMessage.leave(id: 32).encoded())
perform(.room("den", .left(seat: .two, at: 400)))
serverFrames.append(
  ServerMessage.error(ProtocolError(code: .wrongRound, message: "not now", fatal: false), re: 11)
    .encoded())
serverFrames.append(ServerMessage.pong(id: 31).encoded())

for (index, payload) in clientFrames.enumerated() {
  try write("server-frames", "message-\(index)", frame(payload))
}
try write("server-frames", "match", clientFrames.flatMap(frame))
for (index, payload) in serverFrames.enumerated() {
  try write("client-frames", "message-\(index)", frame(payload))
}
// A fair round a lying server breaks off after the commitments: a view of another room,
// one back at waiting, then the round reported with another digest for the opponent.
var fair = RoomState(name: "den", settings: .init(fair: true))
fair.apply(.playerJoined(name: "Alice", token: "a", at: 0))
fair.apply(.playerJoined(name: "Mallory", token: "m", at: 0))
let digest = String(repeating: "ab", count: 32)
fair.apply(.committed(seat: .one, round: 1, digest: digest, at: 1))
fair.apply(.committed(seat: .two, round: 1, digest: String(repeating: "cd", count: 32), at: 1))
var detours: [[UInt8]] = [
  ServerMessage.welcome(room: "den", seat: .one, token: "t").encoded(),
  ServerMessage.state(seq: 1, view: fair.view(for: .one)).encoded(),
]
var elsewhere = fair.view(for: .one)
elsewhere.room = "den-x"
detours.append(ServerMessage.state(seq: 2, view: elsewhere).encoded())
var waiting = fair.view(for: .one)
waiting.phase = .waiting
detours.append(ServerMessage.state(seq: 3, view: waiting).encoded())
fair.apply(.revealed(seat: .two, round: 1, weapon: .rock, nonce: digest, matches: true, at: 2))
fair.apply(.revealed(seat: .one, round: 1, weapon: .paper, nonce: digest, matches: true, at: 2))
detours.append(ServerMessage.state(seq: 4, view: fair.view(for: .one)).encoded())
try write("client-frames", "fair-broken-off", detours.flatMap(frame))
try write("client-frames", "match", serverFrames.flatMap(frame))
for (index, row) in rows.enumerated() { try write("journal", "row-\(index)", [0] + row) }
try write("journal", "rows", [0] + Array(rows.joined(separator: [0x0A])))
try write("journal", "snapshot", [1] + JournalFormat.bytes(of: lobby))
// Format 1, which a data directory from before format 2 holds until it is migrated.
let version1Rows = [
  #"{"join":{"room":"den","name":"Alice","token":"a","at":1}}"#,
  #"{"join":{"name":"Bob","token":"b","at":2}}"#,
  #"{"room":{"_0":"den","_1":{"chose":{"seat":1,"round":1,"weapon":"rock","at":3}}}}"#,
  #"{"room":{"_0":"den","_1":{"spectatorLeft":{}}}}"#,
]
try write("journal", "version1-rows", [2] + Array(version1Rows.joined(separator: "\n").utf8))
try write(
  "journal", "version1-snapshot",
  [3]
    + Array(
      #"""
      {"rooms":{"den":{"name":"den","settings":{"ruleset":"classic","bestOf":3,"roundMillis":0,\#
      "graceMillis":30000},"seats":[1,{"name":"Alice","token":"t","connected":true,"score":1,\#
      "pick":"rock","graceEndsAt":null,"wantsRematch":false,"hasLeft":false}],"spectators":1,\#
      "round":2,"history":[{"round":1,"weapons":["paper","rock"],"winner":1,"reason":"r"}],\#
      "phase":"choosing","version":7}},"quickMatchRoom":null,"nextQuickMatchNumber":3,\#
      "defaults":{"ruleset":"classic","bestOf":3,"roundMillis":0,"graceMillis":30000}}
      """#.utf8))
// A real handshake: the client's first flight seeds the server target, the server's
// answer seeds the client target (each after the chunk-size byte, 0xFF: whole records).
let certificates = try DevelopmentCertificates.create(
  in: NSTemporaryDirectory() + "roshambo-seeds-\(getpid())", hosts: ["127.0.0.1"])
let client = EmbeddedChannel(
  handler: try TLSHandler(
    context: try TLSContext(.client(trust: .caFile(certificates.caCertificate))),
    serverName: "127.0.0.1"))
let server = EmbeddedChannel(
  handler: try TLSHandler(
    context: try TLSContext(
      .server(
        certificateChainFile: certificates.serverCertificate,
        privateKeyFile: certificates.serverKey))))
let address = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
try server.connect(to: address).wait()
try client.connect(to: address).wait()
func flight(_ channel: EmbeddedChannel) throws -> [UInt8] {
  var bytes: [UInt8] = []
  while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
    bytes += buffer.readableBytesView
  }
  return bytes
}
let hello = try flight(client)
try write("tls-server", "client-hello", [0xFF] + hello)
try server.writeInbound(ByteBuffer(bytes: hello))
try write("tls-client", "server-flight", [0xFF] + flight(server))
print("wrote seeds to \(root)")
