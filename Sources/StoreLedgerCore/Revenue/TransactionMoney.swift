/// What one signed transaction says about money (projections/revenue.md, rules G1–G6): what
/// the customer was charged, whether it was a free trial, what a refund returned. One pure
/// mapping from the transaction's facts.
public struct TransactionMoney: Hashable, Sendable {
  /// Charged, in milliunits of the currency: Apple's `price` (which already covers the
  /// quantity), or Σ `tierPrice × tierQuantity` for a multiseat purchase (whose `price` is
  /// the average per seat). 0 without a price.
  public var gross: Int64
  /// Apple signed a price at all (rows stored before prices were kept have none).
  public var isPriced: Bool
  public var isTrial: Bool
  /// Counted in revenue and subscriptions: bought by the customer, not a family member's or
  /// an assignee's access to someone else's purchase (counted once, at the purchaser).
  public var isCounted: Bool

  public init(_ facts: TransactionFacts) {
    let terms = facts.terms
    let tiers = facts.plan?.multiSeat?.priceTiers ?? []
    if !tiers.isEmpty {
      gross = tiers.reduce(0) { $0 + ($1.tierPrice ?? 0) * Int64($1.tierQuantity ?? 0) }
    } else {
      gross = max(0, terms?.price ?? 0)
    }
    isPriced = terms?.price != nil || !tiers.isEmpty
    isTrial =
      terms?.offerDiscountType == .freeTrial
      || (terms?.offerType != nil && terms?.price == 0 && tiers.isEmpty)
    let ownership = facts.inAppOwnershipType
    isCounted = ownership != .familyShared && ownership != .assigned
  }

  /// What a refund of the transaction returned: `revocationPercentage` of the gross when
  /// Apple gave one (a prorated refund), else all of it.
  public func refunded(percentage: Int32?) -> Int64 {
    guard let percentage else { return gross }
    let share = Int128(min(max(Int64(percentage), 0), 100_000))
    return Int64(CommissionPolicy.divideRounded(Int128(gross) * share, 100_000))
  }

  /// What a seat refund returned: the average price per seat (`price`) for each revoked
  /// seat, at most the gross.
  public func refunded(seats: Int64, of facts: TransactionFacts) -> Int64 {
    guard seats > 0 else { return 0 }
    let perSeat: Int64
    if let price = facts.terms?.price {
      perSeat = price
    } else {
      perSeat = facts.quantity > 0 ? gross / facts.quantity : 0
    }
    return min(gross, perSeat * seats)
  }

  /// Monthly value of a span from `start` to `end` costing `gross`, by its length alone: whole
  /// calendar months divide by their number; any other span scales against the mean Gregorian
  /// month (30.436875 days). Revenue values a charge by its billing period
  /// (``BillingPeriod``) and comes here only for what has none (rule V4: a seat addition's
  /// rest of a period).
  public static func monthlyValue(of gross: Int64, from start: Timestamp, to end: Timestamp)
    -> Int64
  {
    guard gross > 0, end > start else { return 0 }
    if let months = MetricsCalendar.wholeMonths(from: start, to: end) {
      return Int64(CommissionPolicy.divideRounded(Int128(gross), Int128(months)))
    }
    // 30.436875 days = 2_629_746_000 ms.
    let length = Int128(end.milliseconds - start.milliseconds)
    return Int64(CommissionPolicy.divideRounded(Int128(gross) * 2_629_746_000, length))
  }
}
