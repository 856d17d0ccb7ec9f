import Foundation
import RoshamboClient
import RoshamboGame
import Testing

/// The one table of keys: what each does on the match and lobby screens, and that every
/// key a hint names does what the hint says.
@Suite("Client: the key bindings")
struct KeyBindingsTests {
  static func byte(_ character: Character) -> UInt8 { character.asciiValue! }

  @Test("the match screen: q, n, each weapon's key in either case, and its number")
  func matchKeys() {
    let classic = Ruleset.classic
    let spock = Ruleset.lizardSpock
    #expect(KeyBindings.matchCommand(for: Self.byte("q"), ruleset: classic) == .quit)
    #expect(KeyBindings.matchCommand(for: Self.byte("N"), ruleset: classic) == .rematch)
    #expect(KeyBindings.matchCommand(for: Self.byte("R"), ruleset: classic) == .pick(.rock))
    #expect(KeyBindings.matchCommand(for: Self.byte("3"), ruleset: classic) == .pick(.scissors))
    #expect(KeyBindings.matchCommand(for: Self.byte("4"), ruleset: classic) == nil)
    #expect(KeyBindings.matchCommand(for: Self.byte("k"), ruleset: classic) == nil)
    #expect(KeyBindings.matchCommand(for: Self.byte("k"), ruleset: spock) == .pick(.spock))
    #expect(KeyBindings.matchCommand(for: Self.byte("s"), ruleset: spock) == .pick(.scissors))
    #expect(
      KeyBindings.matchCommand(for: Self.byte("5"), ruleset: spock) == .pick(spock.weapons[4]))
  }

  @Test("the prompt and the key line name each weapon's key, and each named key picks it")
  func promptNamesBoundKeys() {
    for ruleset in [Ruleset.classic, .lizardSpock] {
      let prompt = KeyBindings.choosePrompt(ruleset)
      let hint = KeyBindings.chooseHint(ruleset)
      for weapon in ruleset.weapons {
        let key = KeyBindings.key(for: weapon)
        #expect(prompt.contains("[\(key)]"), "\(prompt)")
        #expect(hint.contains(String(key)), "\(hint)")
        #expect(
          KeyBindings.matchCommand(for: key.asciiValue!, ruleset: ruleset) == .pick(weapon))
      }
    }
    #expect(KeyBindings.choosePrompt(.classic) == "Choose your weapon: [r]ock [p]aper [s]cissors")
    #expect(KeyBindings.chooseHint(.classic) == "[r/p/s] or [1-3] choose")
    #expect(KeyBindings.choosePrompt(.lizardSpock).hasSuffix("[l]izard spoc[k]"))
  }

  @Test("the lobby: every key its hints name does what the hint says")
  func lobbyHintsBound() {
    let named: [String: KeyBindings.LobbyCommand] = [
      "c": .challenge, "w": .watch, "m": .quickMatch, "t": .enterTournament, "r": .replay,
      "q": .quit, "a": .accept, "d": .decline, "b": .declineForTheEvening,
    ]
    let hints = KeyBindings.lobbyHints + [KeyBindings.challengeHint, KeyBindings.blockHint("Al")]
    for hint in hints {
      for part in hint.split(separator: ",") {
        let words = part.trimmingCharacters(in: .whitespaces)
        guard let first = words.first, let command = named[String(first)] else { continue }
        #expect(
          KeyBindings.lobbyCommand(for: .byte(first.asciiValue!)) == command, "\(words)")
      }
    }
    #expect(KeyBindings.lobbyCommand(for: .up) == .move(-1))
    #expect(KeyBindings.lobbyCommand(for: .byte(Self.byte("j"))) == .move(1))
    #expect(KeyBindings.lobbyCommand(for: .byte(9)) == .switchPane)
    #expect(KeyBindings.lobbyCommand(for: .byte(13)) == .open)
    #expect(KeyBindings.lobbyCommand(for: .left) == nil)
    #expect(KeyBindings.lobbyCommand(for: .byte(Self.byte("x"))) == nil)
  }

  @Test("the replay: the keys its position line names move it as the line says")
  func replayHintsBound() {
    #expect(
      KeyBindings.replayHints == ["← → step", "g G start/end", "space play/pause", "q leave"])
    #expect(KeyBindings.ReplayCommand(.right) == .forward)
    #expect(KeyBindings.ReplayCommand(.left) == .back)
    #expect(KeyBindings.ReplayCommand(.byte(Self.byte("g"))) == .start)
    #expect(KeyBindings.ReplayCommand(.byte(Self.byte("G"))) == .end)
    #expect(KeyBindings.ReplayCommand(.byte(Self.byte(" "))) == .togglePlay)
    #expect(KeyBindings.ReplayCommand(.byte(Self.byte("q"))) == .quit)
    #expect(KeyBindings.ReplayCommand(.up) == nil)
  }
}
