/// What the delivery does wrong on purpose, reproducibly from `seed`: it loses, repeats,
/// reorders and delays notifications the way the real App Store may.
public struct DeliveryFaults: Sendable, Hashable {
  /// Share of attempts never sent (recorded as `TIMED_OUT`, retried on the schedule).
  public var dropFraction: Double
  /// Share of delivered notifications sent a second time.
  public var duplicateFraction: Double
  /// Sends the notifications due together in a shuffled order.
  public var reorder: Bool
  /// Each send waits up to this long first.
  public var maximumDelay: Duration
  public var seed: UInt64

  public init(
    dropFraction: Double = 0, duplicateFraction: Double = 0, reorder: Bool = false,
    maximumDelay: Duration = .zero, seed: UInt64 = 1
  ) {
    self.dropFraction = dropFraction
    self.duplicateFraction = duplicateFraction
    self.reorder = reorder
    self.maximumDelay = maximumDelay
    self.seed = seed
  }

  public static let none = DeliveryFaults()
}

/// SplitMix64: small, fast and the same sequence for the same seed on every platform.
struct SimulatorRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func chance(_ probability: Double) -> Bool {
    probability > 0 && unit() < probability
  }

  /// Uniform in [0, 1), from the top 53 bits.
  mutating func unit() -> Double {
    Double(next() >> 11) / Double(1 << 53)
  }

  mutating func int(_ range: Range<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.count))
  }
}
