import StoreLedgerCore

/// What to simulate: how many customers, over how many months, from which seed. The same
/// configuration always gives the same customers, steps and payloads.
public struct SimulationConfiguration: Sendable, Hashable {
  public var customers: Int
  public var months: Int
  public var seed: UInt64
  /// The simulated clock's start.
  public var start: Timestamp

  public init(customers: Int, months: Int, seed: UInt64, start: Timestamp = Self.defaultStart) {
    self.customers = customers
    self.months = months
    self.seed = seed
    self.start = start
  }

  /// 2026-01-01T00:00:00Z.
  public static let defaultStart = Timestamp(milliseconds: 1_767_225_600_000)
  public static let day: Int64 = 86_400_000
  /// One subscription period.
  public static let period: Int64 = 30 * day

  public var end: Timestamp {
    Timestamp(milliseconds: start.milliseconds + Int64(months) * Self.period)
  }
}

/// The simulated catalog: one subscription group with three levels (1 is the highest),
/// a consumable, a non-consumable and a non-renewing subscription.
public enum SimulatedProducts {
  public static let group = "21482000"
  /// By level, highest first.
  public static let subscriptions = ["pro.premium.monthly", "pro.monthly", "pro.basic.monthly"]
  /// A product of the same level and duration as `pro.monthly`: switching between the two is
  /// a cross-grade, immediate like an upgrade.
  public static let crossgrades = [
    "pro.monthly": "pro.plus.monthly", "pro.plus.monthly": "pro.monthly",
  ]
  public static let consumable = "gems.100"
  public static let nonConsumable = "lifetime.unlock"
  public static let nonRenewing = "pass.30d"
  /// Milliunits of USD.
  static let prices: [String: Int64] = [
    "pro.premium.monthly": 14_990, "pro.monthly": 9_990, "pro.plus.monthly": 10_990,
    "pro.basic.monthly": 4_990,
    "gems.100": 1_990, "lifetime.unlock": 29_990, "pass.30d": 6_990,
  ]
}
