import RoshamboProtocol
import Testing

@Suite("The LAN announcement's datagram")
struct AnnouncementTests {
  let sample = Announcement(
    name: "Ana's laptop", port: 7443, protocolVersion: 1, waiting: 2, code: "4821-0937-5512-8830")

  @Test("an announcement and a query decode to what was encoded")
  func roundTrip() throws {
    #expect(try Announcement.decode(sample.encoded()) == .announcement(sample))
    #expect(try Announcement.decode(Announcement.query()) == .query)
    #expect(sample.encoded().count <= Announcement.maxBytes)
  }

  @Test("fields may come in any order, and unknown fields are ignored")
  func extensible() throws {
    let text =
      #"{"code":"0000-0000-0000-0001","later":[1,{"x":2}],"waiting":0,"port":1,"#
      + #""name":"x","protocol":2,"roshambo":"announce"}"#
    #expect(
      try Announcement.decode(Array(text.utf8))
        == .announcement(
          Announcement(
            name: "x", port: 1, protocolVersion: 2, waiting: 0, code: "0000-0000-0000-0001")))
  }

  @Test(
    "a bad datagram is refused with the problem named",
    arguments: [
      (
        #"{"roshambo":"announce","protocol":1,"name":"\u001b]0;owned\u0007","port":7443,"waiting":0,"code":"0000-0000-0000-0000"}"#,
        "player-name rule"
      ),
      (
        #"{"roshambo":"announce","protocol":1,"name":"a\u202Eb","port":7443,"waiting":0,"code":"0000-0000-0000-0000"}"#,
        "player-name rule"
      ),
      (
        #"{"roshambo":"announce","protocol":1,"name":"a","port":0,"waiting":0,"code":"0000-0000-0000-0000"}"#,
        "port 0"
      ),
      (
        #"{"roshambo":"announce","protocol":1,"name":"a","port":7443,"waiting":-1,"code":"0000-0000-0000-0000"}"#,
        "waiting -1"
      ),
      (
        #"{"roshambo":"announce","protocol":1,"name":"a","port":7443,"waiting":0,"code":"0000-0000-0000-000x"}"#,
        "code"
      ),
      (
        #"{"roshambo":"announce","protocol":1,"port":7443,"waiting":0,"code":"0000-0000-0000-0000"}"#,
        "\"name\""
      ),
      (#"{"roshambo":"shout"}"#, "unknown kind"),
      (#"{"protocol":1}"#, "\"roshambo\""),
      ("[1,2]", "not JSON"),
    ])
  func refused(text: String, problem: String) {
    #expect {
      try Announcement.decode(Array(text.utf8))
    } throws: { error in
      "\(error)".contains(problem)
    }
  }

  @Test("a datagram longer than the limit is refused before it is read")
  func tooLong() {
    let long = [UInt8](repeating: UInt8(ascii: " "), count: Announcement.maxBytes + 1)
    #expect(throws: Announcement.Problem.self) { try Announcement.decode(long) }
  }

  @Test("codes have exactly the form 0000-0000-0000-0000")
  func codeForm() {
    #expect(Announcement.isCode("4821-0937-5512-8830"))
    for bad in [
      "4821-0937-5512-883", "4821 0937 5512 8830", "48210937-5512-8830-", "٤٨٢١-0937-5512-8830", "",
    ] {
      #expect(!Announcement.isCode(bad), "\(bad)")
    }
  }
}
