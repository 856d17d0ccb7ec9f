import Foundation
import Testing

@testable import RoshamboGame

@Suite("A name's skeleton trimmed without Foundation")
struct NameBookTrimTests {
  @Test("trims exactly what trimmingCharacters(in: .whitespaces) trims, every space separator too")
  func sameAsFoundation() {
    // Every space separator (Zs), the tab, the zero-width space (Foundation's set on
    // Linux has it), and what is not white space here (line ends, the byte-order mark).
    let spaces: [Unicode.Scalar] = (0...0x3000).compactMap(Unicode.Scalar.init).filter {
      $0.properties.generalCategory == .spaceSeparator
    }
    #expect(spaces.count == 17)
    let others: [String] = ["\t", "\n", "\r", "\u{200B}", "\u{FEFF}", "x", "é", "山"]
    var texts = ["", "Bob", "bob the builder", " ", "\t\t", "\n"]
    for space in spaces.map({ String($0) }) + others {
      texts += [space, space + "Bob", "Bob" + space, space + "B o b" + space, space + space]
    }
    for text in texts {
      #expect(
        NameBook.trimmed(text) == text.trimmingCharacters(in: .whitespaces),
        "\(text.unicodeScalars.map(\.value))")
    }
  }
}
