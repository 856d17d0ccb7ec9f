import Foundation

/// Which player holds which name on a server: the first identity (the SHA-256 of a
/// client's key) to play under a name holds it, on this server, until the host releases
/// it. Part of the lobby's state, so the journal keeps it across restarts.
///
/// Names that look alike are one name ("carol" and "Саrol" with a Cyrillic С are
/// Carol's): they are compared by ``folded(_:)``.
///
/// A hold lapses once its holder has not used the name for a while (30 days unless the
/// host says otherwise): ``lapses(_:now:afterMillis:)``.
///
/// Invariant: a name is held by at most one identity; an identity may hold several names
/// (the server bounds how many it may take); ``counts`` is how many each holds.
public struct NameBook: Sendable, Equatable {
  /// Each held name's identity, by the name in lower case (``folded(_:)``).
  public private(set) var holders: [String: String] = [:]
  /// When each held name (folded) was last used by its holder, as far as is known (ms
  /// since 1970; a name held before this was kept is not here until it is used).
  public private(set) var lastUsed: [String: Int64] = [:]
  /// How many names each identity holds.
  public private(set) var counts: [String: Int] = [:]
  /// The names (folded) the host released at a start and still asks to release: a
  /// release acts once, at the first start that asks for it, not at every start while
  /// `--release-name` stays on the command line (the next holder keeps the name).
  public private(set) var released: Set<String> = []

  public init(
    holders: [String: String] = [:], released: Set<String> = [],
    lastUsed: [String: Int64] = [:]
  ) {
    self.holders = Dictionary(
      holders.map { (Self.folded($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
    self.released = Set(released.map(Self.folded))
    for (name, at) in lastUsed where self.holders[Self.folded(name)] != nil {
      self.lastUsed[Self.folded(name)] = at
    }
    for identity in self.holders.values { counts[identity, default: 0] += 1 }
  }

  /// How many names `identity` holds.
  public func count(heldBy identity: String) -> Int { counts[identity] ?? 0 }

  /// The names `identity` holds (folded), in order: for a message, so at most `limit`.
  public func names(heldBy identity: String, limit: Int) -> [String] {
    Array(holders.filter { $0.value == identity }.keys.sorted().prefix(limit))
  }

  /// Whether `name`'s hold has lapsed at `now`: its holder has not used it for
  /// `afterMillis` (nil: holds never lapse). A name whose last use is not known has not.
  public func lapses(_ name: String, now: Int64, afterMillis: Int64?) -> Bool {
    guard let afterMillis, let used = lastUsed[Self.folded(name)] else { return false }
    return now - used >= afterMillis
  }

  /// The held names (folded) whose last use is not known, in order.
  public var namesNeverUsed: [String] { holders.keys.filter { lastUsed[$0] == nil }.sorted() }

  /// Whether the host's release of `name` has acted already (and is still asked for).
  public func wasReleased(_ name: String) -> Bool { released.contains(Self.folded(name)) }

  /// The form names are compared in, a skeleton in the manner of Unicode's confusables
  /// (UTS #39): two names that look alike on a screen have the same one, so nobody can
  /// pass for someone by a capital letter, a Cyrillic or Greek letter that looks Latin
  /// (А, Α), a fullwidth or mathematical letter, a dotless ı or a dotted İ, a combining
  /// mark, a variation selector, a digit that draws as a letter (0 as o, 1 as l) or a
  /// space at either end. Compatibility-normalized (NFKC), look-alikes mapped to Latin,
  /// lower-cased, marks and default-ignorables dropped, trimmed. Applying it twice gives
  /// the same as once.
  public static func folded(_ name: String) -> String {
    // Most names are ASCII: lower case, the two digits, trimmed, is the whole skeleton.
    if name.utf8.allSatisfy({ $0 < 0x80 }) {
      return trimmed(digitsAsLetters(name.lowercased()))
    }
    let mapped = String(
      String.UnicodeScalarView(
        name.precomposedStringWithCompatibilityMapping.unicodeScalars.map(latin)))
    var skeleton = String.UnicodeScalarView()
    for scalar in mapped.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .spacingMark, .enclosingMark, .format, .control: continue
      default: break
      }
      if scalar.properties.isDefaultIgnorableCodePoint { continue }
      skeleton.append(latin(scalar))
    }
    return trimmed(digitsAsLetters(String(skeleton)))
  }

  /// "0" as "o" and "1" as "l": "B0b" passes for "Bob", "A1ice" for "Alice".
  private static func digitsAsLetters(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x30 || $0 == 0x31 }) else { return text }
    return String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { $0 == "0" ? "o" : $0 == "1" ? "l" : $0 }))
  }

  /// `text` without white space (``isWhiteSpace(_:)``) at either end:
  /// what Foundation's `trimmingCharacters(in: .whitespaces)` leaves, without its trip
  /// through `NSString` (10 µs a name on Linux, twice at every match's end).
  static func trimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.first, let last = scalars.last else { return text }
    if !isWhiteSpace(first), !isWhiteSpace(last) { return text }
    guard let start = scalars.firstIndex(where: { !isWhiteSpace($0) }),
      let end = scalars.lastIndex(where: { !isWhiteSpace($0) })
    else { return "" }
    return String(scalars[start...end])
  }

  /// Foundation's `.whitespaces` on Linux: the space separators, the tab and the
  /// zero-width space (a separator in Unicode's early versions).
  private static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII { return scalar == " " || scalar == "\t" }
    return scalar.properties.generalCategory == .spaceSeparator || scalar == "\u{200B}"
  }

  /// A letter that looks like a Latin one on a screen, as that letter.
  private static func latin(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    lookAlikes[scalar.value].flatMap(Unicode.Scalar.init) ?? scalar
  }

  /// Cyrillic and Greek letters (both cases) and Latin variants that draw as a Latin
  /// letter, after compatibility normalization (which takes care of fullwidth and
  /// mathematical letters).
  private static let lookAlikes: [UInt32: UInt32] = {
    let pairs: [(String, String)] = [
      // Cyrillic
      ("АВЕЅІЈКМНОРСТХУ", "ABESIJKMHOPCTXY"), ("аеѕіјорсхуԁһӏԛԝ", "aesijopcxydhlqw"),
      // Greek
      ("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX"), ("οικνρυχ", "oikvpux"),
      // Latin variants
      ("ıĸ", "ik"),
    ]
    var table: [UInt32: UInt32] = [:]
    for (from, to) in pairs {
      for (a, b) in zip(from.unicodeScalars, to.unicodeScalars) { table[a.value] = b.value }
    }
    return table
  }()

  /// The identity holding `name`, if one does.
  public func holder(of name: String) -> String? { holders[Self.folded(name)] }

  /// Whether `identity` may play under `name`: nobody holds it, or `identity` does.
  public func allows(_ name: String, for identity: String?) -> Bool {
    guard let holder = holder(of: name) else { return true }
    return holder == identity
  }

  mutating func claim(_ name: String, for identity: String) {
    let key = Self.folded(name)
    if holders[key] == nil {
      holders[key] = identity
      counts[identity, default: 0] += 1
    }
  }

  mutating func release(_ name: String) {
    free(name)
    released.insert(Self.folded(name))
  }

  /// Nobody holds `name` any more.
  mutating func free(_ name: String) {
    let key = Self.folded(name)
    guard let holder = holders.removeValue(forKey: key) else { return }
    lastUsed[key] = nil
    counts[holder]! -= 1
    if counts[holder] == 0 { counts[holder] = nil }
  }

  mutating func use(_ name: String, at: Int64) {
    let key = Self.folded(name)
    if holders[key] != nil { lastUsed[key] = max(at, lastUsed[key] ?? at) }
  }

  mutating func forgetRelease(_ name: String) {
    released.remove(Self.folded(name))
  }
}

/// What can happen to the names held on a server.
public enum NameAction: Sendable, Equatable {
  /// `identity` takes `name`, which nobody holds.
  case claim(name: String, identity: String)
  /// The host frees `name` for anyone (once: the release is remembered while asked for).
  case release(name: String)
  /// The host no longer asks to release `name`: a later release frees it again.
  case releaseForgotten(name: String)
  /// `name`'s holder used it at `at` (kept at most about once a day per name).
  case used(name: String, at: Int64)
  /// `name`'s hold lapsed (its holder had not used it for long): nobody holds it.
  case lapsed(name: String)
  /// Another identity holds `name` on the fleet this server belongs to (it claimed the
  /// name first): nobody holds it here, and the fleet's holder may take it.
  case heldElsewhere(name: String)
}

extension NameAction {
  /// An identity: the SHA-256 of a key, 64 lower-case hex digits.
  public static func isIdentity(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}
