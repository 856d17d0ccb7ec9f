import RoshamboGame
import RoshamboProtocol
import Testing

@Suite("The name rule and the largest frame")
struct PlayerNameTests {
  @Test("names are limited in characters, bytes, columns and marks, and must be visible")
  func rule() {
    #expect(PlayerName.normalize("Alice") == .success("Alice"))
    #expect(PlayerName.normalize("Zoe\u{308}") == .success("Zo\u{EB}"))
    #expect(PlayerName.normalize("山田 太郎") == .success("山田 太郎"))
    #expect(PlayerName.normalize("") == .failure(.empty))
    #expect(
      PlayerName.normalize(String(repeating: "x", count: 25)) == .failure(.tooManyCharacters(25)))
    #expect(
      PlayerName.normalize(String(repeating: "山", count: 17)) == .failure(.tooManyColumns(34)))
    #expect(
      PlayerName.normalize("a" + String(repeating: "\u{301}", count: 32_700))
        == .failure(.tooManyBytes(65_401)))
    #expect(PlayerName.normalize("q\u{301}\u{302}\u{303}\u{304}") == .failure(.tooManyMarks))
    for invisible in ["\u{3164}", "\u{2800}\u{2800}", "\u{115F}", "\u{FFA0}"] {
      #expect(
        PlayerName.normalize(invisible)
          == .failure(.forbidden(invisible.unicodeScalars.first!.value)))
    }
    #expect(PlayerName.normalize("   ") == .failure(.invisible))
    #expect(PlayerName.normalize("a\u{200B}b") == .failure(.forbidden(0x200B)))
    #expect(PlayerName.normalize("a\u{202E}b") == .failure(.forbidden(0x202E)))
    #expect(PlayerName.normalize("a\u{1B}[2Jb") == .failure(.forbidden(0x1B)))
    #expect(PlayerName.normalize("a\u{3000}b") == .failure(.forbidden(0x3000)))
    #expect(PlayerName.normalize("❤️ Bob") == .success("❤️ Bob"))
    #expect(PlayerName.normalize(" Bob") == .failure(.spaceAtEnd))
    #expect(PlayerName.normalize("Bob ") == .failure(.spaceAtEnd))
  }

  @Test("names that look alike on a screen are one name: the review's fourteen look-alikes")
  func lookAlikes() {
    let alice = NameBook.folded("Alice")
    #expect(alice == "alice")
    let lookAlikes = [
      "\u{410}lice",  // Cyrillic А
      "\u{391}lice",  // Greek Α
      " Alice", "Alice ",  // a space at either end
      "Alice\u{FE0F}", "Alic\u{FE00}e",  // variation selectors
      "\u{1D400}lice",  // mathematical bold A
      "\u{FF21}\u{FF4C}\u{FF49}\u{FF43}\u{FF45}",  // fullwidth
      "Al\u{131}ce",  // dotless ı
      "Al\u{130}ce",  // İ
      "Alice\u{332}",  // a combining low line
      "ALICE", "aLiCe", "\u{410}\u{43B}ice",  // case; Cyrillic л is no l: not alike
    ]
    for name in lookAlikes.dropLast() {
      #expect(NameBook.folded(name) == alice, "\(name.unicodeScalars.map(\.value))")
      // The skeleton is its own skeleton: held names read back from a snapshot fold again.
      #expect(NameBook.folded(NameBook.folded(name)) == NameBook.folded(name))
    }
    #expect(NameBook.folded(lookAlikes.last!) != alice)
    // Names that only share letters stay apart.
    #expect(NameBook.folded("Zoë") != NameBook.folded("Zoe X"))
    #expect(NameBook.folded("山田") == "山田")
    // Digits that draw as letters: 0 as o, 1 as l (also in names beyond ASCII).
    #expect(NameBook.folded("A1ice") == alice && NameBook.folded("B0b") == NameBook.folded("bob"))
    #expect(NameBook.folded("\u{410}1ice") == alice)
    #expect(NameBook.folded("p2") != NameBook.folded("p1"))
    // A held name's look-alike is held with it.
    var book = NameBook(holders: ["Alice": String(repeating: "a", count: 64)])
    #expect(!book.allows("\u{410}lice", for: String(repeating: "b", count: 64)))
    book = NameBook()
    #expect(book.allows("\u{410}lice", for: nil))
  }

  @Test("columns: wide characters take two, marks none")
  func columns() {
    #expect(DisplayWidth.columns(of: "abc") == 3)
    #expect(DisplayWidth.columns(of: "山田") == 4)
    #expect(DisplayWidth.columns(of: "e\u{301}") == 1)
    #expect(DisplayWidth.columns(of: "🎲") == 2)
    #expect(DisplayWidth.truncated("山田太郎", toColumns: 5) == "山田…")
    #expect(DisplayWidth.columns(of: DisplayWidth.truncated("山田太郎", toColumns: 5)) <= 5)
    // The printable-ASCII shortcut agrees with the character-by-character count.
    let ascii = String((0x20..<0x7F).map { Character(Unicode.Scalar(UInt8($0))) })
    #expect(
      DisplayWidth.columns(of: ascii) == ascii.reduce(0) { $0 + DisplayWidth.columns(of: $1) })
    #expect(DisplayWidth.columns(of: "a\u{1}b\r\n") == 2)
    // So does the shortcut for scalars that stand alone (Latin, box drawing, kana, CJK).
    for text in ["石頭 剪刀布", "──┼──", "ひらがな カタカナ", "Ünïcödé ß", "naïve\u{A0}x"] {
      #expect(
        DisplayWidth.columns(of: text) == text.reduce(0) { $0 + DisplayWidth.columns(of: $1) })
    }
    #expect(DisplayWidth.columns(of: "か\u{3099}") == 2, "a combining mark takes the slow path")
  }

  @Test("every field at its largest still makes a frame well under the limit")
  func largestFrame() throws {
    // 24 four-byte characters: the most bytes a name may have; quotes double in JSON.
    let longest = String(repeating: "𝒜", count: 24)
    let quotes = String(repeating: "\"", count: 24)
    #expect(PlayerName.isValid(longest) && PlayerName.isValid(quotes))
    let room = String(repeating: "r", count: 32)
    let reason = Ruleset.lizardSpock.rules.map(\.sentence).max { $0.utf8.count < $1.utf8.count }!
    let history = (0..<RoomView.historyLimit).map {
      RoundResult(
        round: Int.max - $0, weapons: [.scissors, .scissors], winner: .two, reason: reason)
    }
    for (first, second) in [(longest, quotes), (quotes, longest)] {
      let view = RoomView(
        room: room, ruleset: .lizardSpock, bestOf: 99, phase: .choosing, round: Int.max,
        you: .one,
        players: [
          PlayerView(
            seat: .one, name: first, connected: true, chosen: true, weapon: .scissors,
            score: Int.max, left: true),
          PlayerView(
            seat: .two, name: second, connected: true, chosen: true, weapon: nil,
            score: Int.max, left: true),
        ],
        history: history, winner: .two, deadline: Int64.max, spectators: Int.max,
        rematch: [.one, .two])
      let bytes = ServerMessage.state(seq: Int.max, view: view).encoded()
      #expect(bytes.count < WireProtocol.maxFrameLength / 4, "\(bytes.count) bytes")
      #expect(try ServerMessage.decode(bytes) == .state(seq: Int.max, view: view))
    }
    let welcome = ServerMessage.welcome(
      room: room, seat: .two, token: String(repeating: "f", count: 32))
    #expect(welcome.encoded().count < 256)
  }
}
