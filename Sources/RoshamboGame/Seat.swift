/// One of the two seats of a room. Its raw value (1 or 2) is the seat on the wire.
///
/// Invariant: there are exactly two seats, and each is the other's `opponent`.
public enum Seat: Int, Sendable, CaseIterable, Hashable, Comparable {
  case one = 1
  case two = 2

  /// The other seat.
  public var opponent: Seat { self == .one ? .two : .one }

  public static func < (lhs: Seat, rhs: Seat) -> Bool { lhs.rawValue < rhs.rawValue }
}
