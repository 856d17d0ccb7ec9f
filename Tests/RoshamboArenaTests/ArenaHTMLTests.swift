import Foundation
import RoshamboClient
import Testing

@testable import RoshamboArena

@Suite struct ArenaHTMLTests {
  static let markupName = "<img src=x onerror=alert(1)>"
  static let quotedName = "exec:say \"hi\" & 'bye'"

  static func result() throws -> ArenaResult {
    try ArenaReportTests.result(
      bots: ["rock", markupName, "markov", quotedName],
      strategies: [.rock, .paper, .markov, .random])
  }

  /// The attributes of every element whose start tag matches `pattern`, by name.
  static func elements(_ html: String, _ pattern: String) throws -> [[String: String]] {
    let tag = try Regex(pattern)
    let attribute = try Regex(#"([a-z-]+)="([^"]*)""#)
    return html.matches(of: tag).map { match in
      var attributes: [String: String] = [:]
      for pair in html[match.range].matches(of: attribute) {
        attributes[String(pair.output[1].substring!)] = String(pair.output[2].substring!)
      }
      return attributes
    }
  }

  /// The JSON's matrix as the numbers' texts, row by row (Foundation's reader on Linux
  /// can be one unit in the last place off: the page is held to the JSON's own digits).
  static func matrixTexts(_ json: String) throws -> [[String]] {
    let start = try #require(json.range(of: "\"matrix\":[[")).upperBound
    let end = try #require(json[start...].range(of: "]]")).lowerBound
    return json[start..<end].components(separatedBy: "],[").map {
      $0.components(separatedBy: ",")
    }
  }

  /// The heat map has one cell per ordered pair of bots, none on the diagonal, each with
  /// the JSON's matrix entry as its `data-rate` and the text report's whole percent.
  @Test func theHeatMapHasACellPerOrderedPairingWithTheJSONsNumbers() throws {
    let result = try Self.result()
    let html = result.html
    let matrix = try Self.matrixTexts(result.json)
    #expect(matrix.count == result.bots.count && matrix.allSatisfy { $0.count == matrix.count })
    let cells = try Self.elements(html, #"<td class="rate"[^>]*>[^<]*</td>"#)
    let count = result.bots.count
    #expect(cells.count == count * (count - 1))
    var seen = Set<[Int]>()
    for cell in cells {
      let row = try #require(cell["data-row"].flatMap { Int($0) })
      let column = try #require(cell["data-column"].flatMap { Int($0) })
      #expect(row != column)
      seen.insert([row, column])
      #expect(cell["data-rate"] == matrix[row][column], "\(row), \(column)")
    }
    #expect(seen.count == count * (count - 1))
    // The number shown is the text report's.
    for row in 0..<count {
      for column in 0..<count where row != column {
        let shown = ArenaReport.wholePercent(result.winRate(row, against: column))
        #expect(
          html.contains(
            try Regex("data-row=\"\(row)\" data-column=\"\(column)\" [^>]*>\(shown)</td>")),
          "\(row), \(column): \(shown)")
      }
    }
    // Each pairing's row has its verdict, its rate and interval as the report gives them.
    let rows = try Self.elements(html, #"<tr data-first="[^>]*>"#)
    #expect(rows.map { $0["data-verdict"] } == result.pairings.map { $0.verdict.rawValue })
    for pairing in result.pairings {
      #expect(html.contains("<td class=\"num rate\">\(ArenaReport.percent(pairing.winRate))</td>"))
    }
  }

  /// A name is text wherever it appears (table, attribute, SVG `<text>`, `<title>`): the
  /// page holds no tag but its own, and every `&` begins an entity.
  @Test func botNamesAppearOnlyEscaped() throws {
    let html = try Self.result().html
    #expect(!html.contains(Self.markupName))
    #expect(!html.contains(Self.quotedName))
    #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
    #expect(html.contains("exec:say &quot;hi&quot; &amp; &#39;bye&#39;"))
    // In the ratings chart too (its label, with the spaces taken out).
    #expect(html.contains("&lt;imgsrc=xonerror"))
    let ownTags: Set<String> = [
      "!doctype", "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p",
      "section", "figure", "table", "tr", "th", "td", "span", "div", "svg", "defs",
      "lineargradient", "stop", "rect", "line", "circle", "g", "text", "details", "summary",
      "pre", "code",
    ]
    for match in html.matches(of: try Regex(#"<(/?)([!a-zA-Z][a-zA-Z0-9]*)"#)) {
      let name = String(html[match.range].drop { $0 == "<" || $0 == "/" }).lowercased()
      #expect(ownTags.contains(name), "a tag not the page's own: \(name)")
    }
    for match in html.matches(of: try Regex("&")) {
      let rest = html[match.range.lowerBound...].prefix(8)
      #expect(
        ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].contains { rest.hasPrefix($0) },
        "a bare &: \(rest)")
    }
  }

  /// The page is one file: it names no other (no address, no `src`, `href`, `url()` but
  /// the legend's own gradient, no import), and its policy lets nothing be loaded or run.
  @Test func thePageNeedsNothingElse() throws {
    let html = try Self.result().html
    #expect(!html.contains("http://"))
    #expect(!html.contains("https://"))
    #expect(!html.contains("@import"))
    #expect(!html.contains(try Regex(#"\s(src|href)=""#)))
    #expect(html.matches(of: try Regex(#"url\((?!#scale\))"#)).isEmpty)
    #expect(!html.lowercased().contains("<script"))
    #expect(
      html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          + "script-src 'none';"))
  }

  /// The page ends with the JSON itself, escaped, so it holds every number `--json`
  /// writes.
  @Test func thePageHoldsTheJSON() throws {
    let result = try Self.result()
    #expect(result.html.contains("<pre id=\"json\">\(escaped(result.json))</pre>"))
  }
}
