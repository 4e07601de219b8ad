/// The figures of one row: at the bucket's instant (its last millisecond) for stocks, over
/// the bucket for flows. Amounts are integers in milliunits of the row's currency; rates are
/// fractions (0.25 = 25 %), nil where the denominator is 0.
public struct MetricsFigures: Hashable, Sendable, Codable {
  // Stocks at the bucket's instant.
  public var activeSubscriptions: Int64 = 0
  /// Active subscriptions at the previous bucket's instant (for the first bucket, just
  /// before the range): what churn is a share of.
  public var activeAtStart: Int64 = 0
  public var activeTrials: Int64 = 0
  public var activeSeats: Int64 = 0
  /// Of `activeSubscriptions` and `activeTrials`, those in billing grace (status 4).
  public var inGrace: Int64 = 0
  /// Not in force and not lost: in billing retry (status 3).
  public var inBillingRetry: Int64 = 0
  public var mrr: Int64 = 0
  public var arr: Int64 = 0
  // Flows in the bucket.
  public var newSubscriptions: Int64 = 0
  public var trialStarts: Int64 = 0
  public var trialConversions: Int64 = 0
  public var trialExpirations: Int64 = 0
  /// Conversions ÷ (conversions + expirations): of the trials that ended in the bucket.
  public var trialConversionRate: Double?
  public var reactivations: Int64 = 0
  public var productChanges: Int64 = 0
  public var churnVoluntary: Int64 = 0
  public var churnBilling: Int64 = 0
  public var churnRefund: Int64 = 0
  public var churnOther: Int64 = 0
  public var churned: Int64 = 0
  /// Churned ÷ `activeAtStart`.
  public var churnRate: Double?
  /// Paid charges (purchases, renewals, seat additions).
  public var transactions: Int64 = 0
  public var refunds: Int64 = 0
  /// Refunds ÷ transactions.
  public var refundRate: Double?
  public var refundsReversed: Int64 = 0
  public var grossRevenue: Int64 = 0
  public var refundAmount: Int64 = 0
  public var refundReversedAmount: Int64 = 0
  /// Estimated: the unused part of upgraded periods.
  public var upgradeCredit: Int64 = 0
  /// Gross − refunds + reversed refunds − upgrade credits.
  public var netRevenue: Int64 = 0
  /// Estimated: net revenue less tax and Apple's commission (projections/revenue.md).
  public var estimatedProceeds: Int64 = 0

  public init() {}

  /// Every amount (milliunits), by name: what a rate table converts.
  static var amountPaths: [WritableKeyPath<MetricsFigures, Int64>] {
    [
      \.mrr, \.arr, \.grossRevenue, \.refundAmount, \.refundReversedAmount, \.upgradeCredit,
      \.netRevenue, \.estimatedProceeds,
    ]
  }
  /// Every count, by name.
  static var countPaths: [WritableKeyPath<MetricsFigures, Int64>] {
    [
      \.activeSubscriptions, \.activeAtStart, \.activeTrials, \.activeSeats, \.inGrace,
      \.inBillingRetry, \.newSubscriptions,
      \.trialStarts,
      \.trialConversions, \.trialExpirations, \.reactivations, \.productChanges, \.churnVoluntary,
      \.churnBilling, \.churnRefund, \.churnOther, \.churned, \.transactions, \.refunds,
      \.refundsReversed,
    ]
  }

  /// Whether any amount is not zero (a currency with only zeros needs no rate).
  var holdsMoney: Bool { Self.amountPaths.contains { self[keyPath: $0] != 0 } }

  /// Adds `other`'s counts and amounts (rates are derived afterwards).
  mutating func add(_ other: MetricsFigures) {
    for path in Self.amountPaths + Self.countPaths { self[keyPath: path] += other[keyPath: path] }
  }

  /// Derives the totals and rates from the counts.
  mutating func derive() {
    churned = churnVoluntary + churnBilling + churnRefund + churnOther
    netRevenue = grossRevenue - refundAmount + refundReversedAmount - upgradeCredit
    arr = mrr * 12
    let ended = trialConversions + trialExpirations
    trialConversionRate = ended > 0 ? Double(trialConversions) / Double(ended) : nil
    refundRate = transactions > 0 ? Double(refunds) / Double(transactions) : nil
    churnRate = activeAtStart > 0 ? Double(churned) / Double(activeAtStart) : nil
  }

  /// The figure named `name` (JSON member name), for a diff.
  public static func value(_ name: String, of figures: MetricsFigures) -> Int64? {
    guard let path = namedPaths[name] else { return nil }
    return figures[keyPath: path]
  }

  /// Every integer figure by its JSON name, in a stable order: the one list the names and
  /// the lookup are made from.
  static var named: [(String, WritableKeyPath<MetricsFigures, Int64>)] {
    [
      ("activeSubscriptions", \.activeSubscriptions), ("activeAtStart", \.activeAtStart),
      ("activeTrials", \.activeTrials), ("activeSeats", \.activeSeats), ("inGrace", \.inGrace),
      ("inBillingRetry", \.inBillingRetry), ("mrr", \.mrr),
      ("arr", \.arr), ("newSubscriptions", \.newSubscriptions), ("trialStarts", \.trialStarts),
      ("trialConversions", \.trialConversions), ("trialExpirations", \.trialExpirations),
      ("reactivations", \.reactivations), ("productChanges", \.productChanges),
      ("churnVoluntary", \.churnVoluntary), ("churnBilling", \.churnBilling),
      ("churnRefund", \.churnRefund), ("churnOther", \.churnOther), ("churned", \.churned),
      ("transactions", \.transactions), ("refunds", \.refunds),
      ("refundsReversed", \.refundsReversed), ("grossRevenue", \.grossRevenue),
      ("refundAmount", \.refundAmount), ("refundReversedAmount", \.refundReversedAmount),
      ("upgradeCredit", \.upgradeCredit), ("netRevenue", \.netRevenue),
      ("estimatedProceeds", \.estimatedProceeds),
    ]
  }

  static var namedPaths: [String: WritableKeyPath<MetricsFigures, Int64>] {
    Dictionary(uniqueKeysWithValues: named)
  }

  /// Names of the integer figures, in a stable order.
  public static var figureNames: [String] { named.map(\.0) }
}
