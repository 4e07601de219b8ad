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

  /// The default start, or an earlier one when a run of `months` from it would pass `now`:
  /// simulated time never passes the present (Apple signs nothing in the future).
  public static func start(months: Int, endingBy now: Timestamp) -> Timestamp {
    let today = now.milliseconds / day * day
    let latest = today - Int64(months) * period
    return Timestamp(milliseconds: min(defaultStart.milliseconds, latest))
  }

  public var end: Timestamp {
    Timestamp(milliseconds: start.milliseconds + Int64(months) * Self.period)
  }
}

/// The simulated catalog: one subscription group whose products have three levels (1 is the
/// highest) and three durations (weekly, monthly, yearly), a consumable, a non-consumable and
/// a non-renewing subscription, with what each one entitles to in the simulated app. The
/// simulator's truth reads entitlements from here, never from StoreLedger's catalog.
public enum SimulatedProducts {
  public static let group = "21482000"

  /// One auto-renewable product of the group.
  public struct Subscription: Sendable, Hashable {
    public let id: String
    /// 1 is the highest service level.
    public let level: Int
    public let days: Int64
    /// Milliunits of USD.
    public let price: Int64
    public let entitlements: [String]

    public var period: Int64 { days * SimulationConfiguration.day }
    /// One period as an ISO 8601 duration, as Apple writes `offerPeriod`.
    public var isoPeriod: String {
      switch days {
      case 7: "P1W"
      case 365: "P1Y"
      case let days where days % 30 == 0: "P\(days / 30)M"
      default: "P\(days)D"
      }
    }
  }

  /// Every subscription product, highest level first, then by duration.
  public static let subscriptionProducts: [Subscription] = [
    .init(
      id: "pro.premium.monthly", level: 1, days: 30, price: 14_990,
      entitlements: ["premium", "pro"]),
    .init(
      id: "pro.premium.yearly", level: 1, days: 365, price: 149_990,
      entitlements: ["premium", "pro"]),
    .init(id: "pro.weekly", level: 2, days: 7, price: 2_990, entitlements: ["pro"]),
    .init(id: "pro.monthly", level: 2, days: 30, price: 9_990, entitlements: ["pro"]),
    .init(id: "pro.plus.monthly", level: 2, days: 30, price: 10_990, entitlements: ["pro"]),
    .init(id: "pro.yearly", level: 2, days: 365, price: 99_990, entitlements: ["pro"]),
    .init(id: "pro.basic.weekly", level: 3, days: 7, price: 1_490, entitlements: ["basic"]),
    .init(id: "pro.basic.monthly", level: 3, days: 30, price: 4_990, entitlements: ["basic"]),
    .init(id: "pro.basic.yearly", level: 3, days: 365, price: 49_990, entitlements: ["basic"]),
  ]
  static let byId = Dictionary(uniqueKeysWithValues: subscriptionProducts.map { ($0.id, $0) })

  public static func subscription(_ id: String) -> Subscription? { byId[id] }

  public static let consumable = "gems.100"
  public static let nonConsumable = "lifetime.unlock"
  public static let nonRenewing = "pass.30d"
  public static let nonRenewingDays: Int64 = 30
  public static let consumableUnits: Int64 = 100

  /// What each product entitles to (the catalog a developer of the simulated app would write).
  public static let entitlements: [String: [String]] = Dictionary(
    uniqueKeysWithValues: subscriptionProducts.map { ($0.id, $0.entitlements) }
  )
  .merging([consumable: ["gems"], nonConsumable: ["lifetime"], nonRenewing: ["pass"]]) { a, _ in a }

  /// The StoreLedger catalog a developer of the simulated app writes: the same entitlements,
  /// the consumable's units and the pass's days.
  public static let catalog = ProductCatalog(
    products: entitlements.reduce(into: [:]) { products, entry in
      let (id, names) = entry
      switch id {
      case consumable: products[id] = .init(entitlements: names, units: consumableUnits)
      case nonRenewing:
        products[id] = .init(
          entitlements: names, type: .nonRenewingSubscription, durationDays: nonRenewingDays)
      default: products[id] = .init(entitlements: names)
      }
    })

  /// Milliunits of USD.
  static let prices: [String: Int64] = Dictionary(
    uniqueKeysWithValues: subscriptionProducts.map { ($0.id, $0.price) }
  )
  .merging(["gems.100": 1_990, "lifetime.unlock": 29_990, "pass.30d": 6_990]) { a, _ in a }
}
