import RoshamboJSON

/// The rate at which a server takes frames from one connection, as its `welcome`
/// announces it (`"rate": {"perSecond": 20, "burst": 40}`): a client that sends no faster
/// has none dropped.
///
/// Invariant: both numbers are at least 1 (a decoded announcement that says otherwise is
/// refused as a message this client cannot read).
public struct FrameRate: Equatable, Sendable {
  /// Frames a second, over time.
  public var perSecond: Int
  /// Frames a connection may send at once before the rate applies.
  public var burst: Int

  public init(perSecond: Int, burst: Int) {
    self.perSecond = max(1, perSecond)
    self.burst = max(1, burst)
  }
}

extension JSONText {
  /// `{"perSecond":20,"burst":40}`.
  mutating func frameRate(_ rate: FrameRate) {
    raw("{")
    key("perSecond"); int(rate.perSecond); comma()
    key("burst"); int(rate.burst)
    raw("}")
  }
}

extension JSONReader {
  /// A `rate` object; unknown keys are skipped, a missing or non-positive number throws.
  mutating func frameRate() throws -> FrameRate {
    var perSecond: Int?
    var burst: Int?
    try object { reader, key in
      switch key {
      case "perSecond": perSecond = try reader.int()
      case "burst": burst = try reader.int()
      default: try reader.skipValue()
      }
    }
    guard let perSecond, let burst, perSecond >= 1, burst >= 1 else {
      throw failure("a rate without a positive \"perSecond\" and \"burst\"")
    }
    return FrameRate(perSecond: perSecond, burst: burst)
  }
}
