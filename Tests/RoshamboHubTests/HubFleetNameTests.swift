import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// A name held on one server of a fleet is held on all (issue 49): the hub offers its
/// holders' claims and uses to the fleet's name book, refuses a name the book gives
/// another identity, and yields a name it held when the book's first claim was another's.
@Suite("Hub: names held across a fleet")
struct HubFleetNameTests {
  typealias H = HubHarness

  static func fleetHub(lobby: LobbyState = LobbyState(defaults: .init(bestOf: 3))) -> HubHarness {
    HubHarness(lobby: lobby) { $0.sharesNames = true }
  }

  static let (ann, mallory) = (HubNameLimitTests.key(1), HubNameLimitTests.key(2, at: "10.0.0.2"))

  /// The book's row: `holder` holds `name`, used `ago` ms before the hub's clock.
  static func row(
    _ name: String, _ holder: Peer, _ hub: HubHarness, ago: Int64 = 0, released: Bool = false
  ) -> FleetName {
    FleetName(
      folded: NameBook.folded(name), identity: holder.identity!, usedAt: hub.now - ago,
      released: released)
  }

  @Test("a name the fleet gives another identity is refused here, to a key and to no key")
  func heldOnTheFleet() {
    var hub = Self.fleetHub()
    _ = hub.handle(.fleetNamesRead([Self.row("Ann", Self.ann, hub)]))
    let refused = HubNameLimitTests.arrive(&hub, Self.mallory, as: "ANN")
    #expect(refused.contains("→2 error name_taken"), "\(refused)")
    let keyless = HubRatingTests.peer(3, at: "10.0.0.3", keyed: false)
    #expect(HubNameLimitTests.arrive(&hub, keyless, as: "Ann").contains("→3 error name_taken"))
    // The fleet's holder is welcome, holds the name here too, and says so to the fleet.
    let welcomed = HubNameLimitTests.arrive(&hub, Self.ann, as: "Ann")
    #expect(!welcomed.contains { $0.contains("error") }, "\(welcomed)")
    #expect(hub.state.lobby.names.holder(of: "Ann") == Self.ann.identity)
    #expect(welcomed.contains("offer claim ann by \(Self.ann.identity!) at +0"), "\(welcomed)")
  }

  @Test("a name claimed here first, and claimed first on the fleet by another, is theirs")
  func yieldsToTheFirstClaim() {
    var hub = Self.fleetHub()
    let claimed = HubNameLimitTests.arrive(&hub, Self.mallory, as: "Ann")
    #expect(claimed.contains("offer claim ann by \(Self.mallory.identity!) at +0"), "\(claimed)")
    #expect(hub.state.lobby.names.holder(of: "Ann") == Self.mallory.identity)
    hub.now += 3_000
    let read = hub.handle(.fleetNamesRead([Self.row("Ann", Self.ann, hub, ago: 5_000)]))
    #expect(read.contains { $0.hasPrefix("log a name another player claimed first") }, "\(read)")
    _ = hub.settle()
    #expect(hub.state.lobby.names.holder(of: "Ann") == nil)
    // Mallory plays on under the name until she leaves; then it is Ann's.
    #expect(hub.state.sessions.followers[2]?.name == "Ann")
    _ = hub.handle(.closed(Self.mallory))
    let again = HubNameLimitTests.arrive(
      &hub, Peer(id: 4, address: "10.0.0.2", identity: Self.mallory.identity), as: "Ann")
    #expect(again.contains("→4 error name_taken"), "\(again)")
    _ = HubNameLimitTests.arrive(&hub, Self.ann, as: "Ann")
    #expect(hub.state.lobby.names.holder(of: "Ann") == Self.ann.identity)
  }

  @Test("the yield is journaled: a restart does not give the name back")
  func yieldJournaled() {
    var hub = Self.fleetHub()
    _ = HubNameLimitTests.arrive(&hub, Self.mallory, as: "Ann")
    _ = hub.handle(.fleetNamesRead([Self.row("Ann", Self.ann, hub)]))
    #expect(hub.pendingCommit == nil)
    _ = hub.flush()
    #expect(hub.pendingCommit?.actions == [.names(.heldElsewhere(name: "ann"))])
  }

  @Test("a name released on another server is released here; another holder's release is not")
  func released() {
    var hub = Self.fleetHub()
    _ = HubNameLimitTests.arrive(&hub, Self.ann, as: "Ann")
    _ = HubNameLimitTests.arrive(&hub, Self.mallory, as: "Mal")
    _ = hub.handle(
      .fleetNamesRead([
        Self.row("Ann", Self.ann, hub, released: true),
        Self.row("Mal", Self.ann, hub, released: true),
      ]))
    #expect(hub.state.lobby.names.holder(of: "Ann") == nil)
    #expect(hub.state.lobby.names.holder(of: "Mal") == Self.mallory.identity)
  }

  @Test("a release read while the journal cannot be written is applied again when play resumes")
  func releaseLostWithAFailedWrite() {
    var hub = Self.fleetHub()
    _ = HubNameLimitTests.arrive(&hub, Self.ann, as: "Ann")
    _ = hub.settle()
    let durable = hub.state.lobby
    // The release is read; the commit that would make the yield durable fails.
    _ = hub.handle(.fleetNamesRead([Self.row("Ann", Self.ann, hub, released: true)]))
    _ = hub.flush()
    _ = hub.handle(.committed(.failure(JournalFailure("disk full")), onJournalThread: false))
    _ = hub.handle(.reloaded(.success((durable, 0))))
    #expect(hub.state.lobby.names.holder(of: "Ann") == Self.ann.identity)
    // Writes succeed again: the release is applied again.
    _ = hub.fire(.probe)
    _ = hub.handle(.probed(succeeded: true))
    #expect(hub.state.lobby.names.holder(of: "Ann") == nil)
  }

  @Test("a fleet holder who has not used the name for the lapse keeps it nowhere")
  func lapsed() {
    var hub = Self.fleetHub()
    let month = 31 * 86_400_000 as Int64
    _ = HubNameLimitTests.arrive(&hub, Self.mallory, as: "Ann")
    _ = hub.handle(.fleetNamesRead([Self.row("Ann", Self.ann, hub, ago: month)]))
    #expect(hub.state.lobby.names.holder(of: "Ann") == Self.mallory.identity)
    let newcomer = HubNameLimitTests.key(5, at: "10.0.0.5")
    _ = hub.handle(.fleetNamesRead([Self.row("Bea", Self.ann, hub, ago: month)]))
    let arrived = HubNameLimitTests.arrive(&hub, newcomer, as: "Bea")
    #expect(hub.state.lobby.names.holder(of: "Bea") == newcomer.identity, "\(arrived)")
  }

  @Test("at start every name held here is offered as used when last used; outside a fleet nothing")
  func startOffersEveryName() {
    var lobby = LobbyState(defaults: .init(bestOf: 3))
    _ = lobby.apply(.names(.claim(name: "Ann", identity: Self.ann.identity!)))
    _ = lobby.apply(.names(.used(name: "Ann", at: 500)))
    _ = lobby.apply(.names(.claim(name: "Mal", identity: Self.mallory.identity!)))
    _ = lobby.apply(.names(.used(name: "Mal", at: 700)))
    var hub = Self.fleetHub(lobby: lobby)
    let started = hub.raw(.start(releasing: ["mal"]))
    let offers = started.flatMap { output -> [NameOffer] in
      guard case .offerNames(let offers) = output else { return [] }
      return offers
    }
    #expect(
      offers == [
        NameOffer(.use, name: "ann", identity: Self.ann.identity!, at: 500),
        NameOffer(.use, name: "mal", identity: Self.mallory.identity!, at: 700),
        NameOffer(.release, name: "mal", identity: Self.mallory.identity!, at: hub.now),
      ])
    var alone = HubHarness(lobby: lobby)
    let lines =
      alone.handle(.start(releasing: ["mal"]))
      + HubNameLimitTests.arrive(&alone, Self.ann, as: "Bo")
    #expect(!lines.contains { $0.hasPrefix("offer") }, "\(lines)")
  }
}
