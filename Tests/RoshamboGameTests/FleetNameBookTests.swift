import GameFixtures
import RoshamboGame
import Testing

/// The fleet's name book's rule (what PostgreSQL's `roshambo_names` follows, checked
/// against the same script in `SharedNamesTests`): the first claim holds; the holder's uses keep it;
/// another's claim takes it only once released or lapsed.
@Suite("The fleet's name book")
struct FleetNameBookTests {
  static let (ann, bob, day) = (FleetNameScript.ann, FleetNameScript.bob, FleetNameScript.day)

  @Test("the first claim holds; uses keep it; a release or a lapse lets another take it")
  func rule() {
    var book = FleetNameBook()
    var changes: [Bool] = []
    for (offer, now) in FleetNameScript.offers {
      changes.append(book.offer(offer, now: now, lapseMillis: 30 * Self.day) != nil)
    }
    #expect(changes == FleetNameScript.changed)
    #expect(book.rows == FleetNameScript.final)
  }

  @Test("without a lapse a name is held for ever")
  func noLapse() {
    var book = FleetNameBook()
    book.offer(NameOffer(.claim, name: "Ann", identity: Self.ann, at: 0), now: 0, lapseMillis: nil)
    let later = 10_000 * Self.day
    #expect(
      book.offer(
        NameOffer(.claim, name: "Ann", identity: Self.bob, at: later), now: later,
        lapseMillis: nil) == nil)
    #expect(book.rows["ann"]?.identity == Self.ann)
  }
}
