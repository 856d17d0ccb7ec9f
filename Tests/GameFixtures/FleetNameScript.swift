import RoshamboGame

/// A script of offers to a fleet's name book, with what each changes and the book after
/// them: the rule's cases, run against ``FleetNameBook`` and against PostgreSQL's table.
public enum FleetNameScript {
  public static let ann = String(repeating: "a", count: 64)
  public static let bob = String(repeating: "b", count: 64)
  public static let day: Int64 = 86_400_000

  /// Offers in order, each with the moment it is made.
  public static let offers: [(NameOffer, now: Int64)] = [
    (NameOffer(.claim, name: "Ann", identity: ann, at: 10), 10),
    // Bob's claim of the same name (another spelling) comes second: Ann keeps it.
    (NameOffer(.claim, name: "ANN", identity: bob, at: 20), 20),
    // Ann's use moves her last use; an older use does not.
    (NameOffer(.use, name: "ann", identity: ann, at: 30 * day), 30 * day),
    (NameOffer(.use, name: "ann", identity: ann, at: 5), 30 * day),
    // 31 days after her last use Bob's claim of it takes it (a lapse of 30 days).
    (NameOffer(.claim, name: "Ann", identity: bob, at: 61 * day + 1), 61 * day + 1),
    // Bob's name, released by a host; a use of it by a server that has not read the
    // release does not undo it; Ann's claim takes it; Bob's release of it is not his.
    (NameOffer(.claim, name: "Bob", identity: bob, at: 40), 40),
    (NameOffer(.release, name: "Bob", identity: bob, at: 50), 50),
    (NameOffer(.use, name: "Bob", identity: bob, at: 60), 60),
    (NameOffer(.claim, name: "Bob", identity: ann, at: 70), 70),
    (NameOffer(.release, name: "Bob", identity: bob, at: 80), 80),
    // A release of a name nobody holds adds nothing.
    (NameOffer(.release, name: "Cy", identity: ann, at: 90), 90),
  ]

  public static let changed = [
    true, false, true, false, true, true, true, false, true, false, false,
  ]

  public static let final = [
    "ann": FleetName(folded: "ann", identity: bob, usedAt: 61 * day + 1),
    "bob": FleetName(folded: "bob", identity: ann, usedAt: 70),
  ]
}
