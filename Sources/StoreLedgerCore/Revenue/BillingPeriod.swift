/// The period one charge of an auto-renewable subscription pays for: one of the durations App
/// Store Connect offers (one week; one, two, three or six months; one year), read from the
/// chain's own dates (rules V1–V4 in projections/revenue.md).
///
/// A transaction's span is not always its billing period: a renewal-date extension adds free
/// days (Apple leaves them out of the commission year too), and a recovery inside billing
/// grace keeps the old cycle, so its span is shorter than what it paid for. Such a span takes
/// its product's period from another transaction of the chain that spans one exactly.
public enum BillingPeriod: Hashable, Sendable {
  case week
  case months(Int64)

  /// The period from `start` to `end` when the span is one (a renewal bought up to a day
  /// early, or a month end that clamps, still is); nil for any other span.
  public static func spanning(from start: Timestamp, to end: Timestamp) -> BillingPeriod? {
    let length = end.milliseconds - start.milliseconds
    if abs(length - 7 * MetricsCalendar.day) <= MetricsCalendar.day { return .week }
    guard let months = MetricsCalendar.wholeMonths(from: start, to: end),
      [1, 2, 3, 6, 12].contains(months)
    else { return nil }
    return .months(months)
  }

  /// The monthly value of one charge for this period: months divide; a week is 52 ÷ 12 of a
  /// month, as the year has 52 of them.
  public func monthlyValue(of gross: Int64) -> Int64 {
    switch self {
    case .week: Int64(CommissionPolicy.divideRounded(Int128(gross) * 52, 12))
    case .months(let count): Int64(CommissionPolicy.divideRounded(Int128(gross), Int128(count)))
    }
  }

  /// Each product's billing period in a chain: the period of its earliest transaction whose
  /// span is one.
  static func periods(of records: [TransactionRecord]) -> [String: BillingPeriod] {
    var found: [String: BillingPeriod] = [:]
    for record in records where !record.isSeatAddition {
      let facts = record.facts
      guard let product = facts.productId, found[product] == nil,
        let start = facts.purchaseDate, let end = facts.expiresDate,
        let period = spanning(from: start, to: end)
      else { continue }
      found[product] = period
    }
    return found
  }

  /// The monthly value of `record`'s charge (V1–V4): by the period its span is, else (not a
  /// seat addition, whose charge pays for the rest of a period) by its product's period in
  /// the chain, else scaled by its length against the mean Gregorian month.
  static func monthlyValue(
    of record: TransactionRecord, gross: Int64, periods: [String: BillingPeriod]
  ) -> Int64 {
    let facts = record.facts
    guard let start = facts.purchaseDate, let end = facts.expiresDate, end > start, gross > 0
    else { return 0 }
    if let period = spanning(from: start, to: end)
      ?? (record.isSeatAddition ? nil : facts.productId.flatMap { periods[$0] })
    {
      return period.monthlyValue(of: gross)
    }
    return TransactionMoney.monthlyValue(of: gross, from: start, to: end)
  }
}
