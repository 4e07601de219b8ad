import StoreLedgerCore

/// The simulated App Store's own books: what it charged and refunded, entered as it stores
/// each transaction, by its own clock and its own record of what it charged. It never asks
/// StoreLedger; the demo compares StoreLedger's metrics against it.
public struct RevenueBooks: Sendable, Hashable {
  /// One month of one currency, UTC.
  public struct Month: Sendable, Hashable, Codable {
    /// Paid charges and their sum (milliunits).
    public var transactions: Int64 = 0
    public var gross: Int64 = 0
    public var refunds: Int64 = 0
    public var refunded: Int64 = 0
    public var reversals: Int64 = 0
    public var reversed: Int64 = 0
    /// Subscriptions whose first period began this month (free trials included).
    public var newSubscriptions: Int64 = 0

    public init() {}
  }

  /// By (month's first day as `YYYY-MM`, currency).
  public private(set) var months: [String: [String: Month]] = [:]

  public init() {}

  /// Enters the difference between the stored `previous` and `new` of one transaction at
  /// `time` (the store's clock). Family members' and assignees' transactions give access to
  /// someone else's purchase: the store charged the purchaser, once.
  mutating func enter(
    previous: JWSTransactionDecodedPayload?, new: JWSTransactionDecodedPayload, at time: Timestamp
  ) {
    guard new.inAppOwnershipType != .familyShared, new.inAppOwnershipType != .assigned,
      let currency = new.currency
    else { return }
    let charged = Self.charged(new)
    if previous == nil, let bought = new.purchaseDate {
      if charged > 0 {
        change(bought, currency) {
          $0.transactions += 1
          $0.gross += charged
        }
      }
      if new.type == .autoRenewableSubscription, new.transactionId == new.originalTransactionId {
        change(bought, currency) { $0.newSubscriptions += 1 }
      }
    }
    let wasRevoked = previous?.revocationDate != nil
    if let revoked = new.revocationDate, !wasRevoked, new.revocationType != .familyRevoke,
      charged > 0
    {
      let share = Int64(new.revocationPercentage ?? 100_000)
      // The refund of a share, to the milliunit, half away from zero; seats refunded
      // before are not returned twice.
      let amount = max(
        0, (charged * share + 50_000) / 100_000 - seatsRefunded[new.transactionId ?? "", default: 0]
      )
      change(revoked, currency) {
        $0.refunds += 1
        $0.refunded += amount
      }
      refundedAmounts[new.transactionId ?? ""] = amount
    } else if wasRevoked, new.revocationDate == nil,
      let amount = refundedAmounts[new.transactionId ?? ""]
    {
      change(time, currency) {
        $0.reversals += 1
        $0.reversed += amount
      }
    }
    let seatsBefore = Int64(previous?.multiSeatInfo?.revokedSeatQuantity ?? 0)
    let seatsNow = Int64(new.multiSeatInfo?.revokedSeatQuantity ?? 0)
    if seatsNow > seatsBefore, new.revocationDate == nil, let perSeat = new.price {
      let amount = min(charged, perSeat * (seatsNow - seatsBefore))
      change(time, currency) {
        $0.refunds += 1
        $0.refunded += amount
      }
      seatsRefunded[new.transactionId ?? "", default: 0] += amount
    }
  }

  /// What the store refunded per transaction, for a reversal.
  private var refundedAmounts: [String: Int64] = [:]
  /// What seat refunds returned per transaction.
  private var seatsRefunded: [String: Int64] = [:]

  /// What the store charged for a transaction: its price tiers for seats, else its price.
  static func charged(_ payload: JWSTransactionDecodedPayload) -> Int64 {
    if let tiers = payload.multiSeatInfo?.priceTiers, !tiers.isEmpty {
      return tiers.reduce(0) { $0 + ($1.tierPrice ?? 0) * Int64($1.tierQuantity ?? 0) }
    }
    return max(0, payload.price ?? 0)
  }

  private mutating func change(_ time: Timestamp, _ currency: String, _ body: (inout Month) -> Void)
  {
    body(&months[MetricsCalendar.monthText(time), default: [:]][currency, default: Month()])
  }

  /// The figures compared with StoreLedger's, by name: its figure and the books' value.
  public static var compared:
    [(name: String, figure: KeyPath<MetricsFigures, Int64>, booked: KeyPath<Month, Int64>)]
  {
    [
      ("transactions", \.transactions, \.transactions), ("grossRevenue", \.grossRevenue, \.gross),
      ("refunds", \.refunds, \.refunds), ("refundAmount", \.refundAmount, \.refunded),
      ("refundsReversed", \.refundsReversed, \.reversals),
      ("refundReversedAmount", \.refundReversedAmount, \.reversed),
      ("newSubscriptions", \.newSubscriptions, \.newSubscriptions),
    ]
  }

  /// How StoreLedger's monthly `report` (environments added up) agrees with the books: every
  /// figure of every month and currency either holds, one line each where they differ.
  public func compare(_ report: MetricsReport) -> (compared: Int, differences: [String]) {
    var engine: [String: [String: [Int64]]] = [:]
    for row in report.rows {
      let month = MetricsCalendar.monthText(row.start)
      var values = engine[month]?[row.currency] ?? Array(repeating: 0, count: Self.compared.count)
      for (index, item) in Self.compared.enumerated() {
        values[index] += row.figures[keyPath: item.figure]
      }
      engine[month, default: [:]][row.currency] = values
    }
    var compared = 0
    var differences: [String] = []
    for month in Set(engine.keys).union(months.keys).sorted() {
      let ours = engine[month] ?? [:]
      let theirs = months[month] ?? [:]
      for currency in Set(ours.keys).union(theirs.keys).sorted() {
        let booked = theirs[currency] ?? Month()
        for (index, item) in Self.compared.enumerated() {
          compared += 1
          let mine = ours[currency]?[index] ?? 0
          if mine != booked[keyPath: item.booked] {
            differences.append(
              "\(month) \(currency) \(item.name): StoreLedger \(mine), the store's books "
                + "\(booked[keyPath: item.booked])")
          }
        }
      }
    }
    return (compared, differences)
  }
}
