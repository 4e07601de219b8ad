/// How StoreLedger estimates proceeds from what customers paid: Apple's commission and the
/// tax included in prices. Estimates only, labelled so wherever shown: Apple's payments and
/// App Store Connect's reports are the accounting truth (Apple says not to account from
/// `price`).
///
/// Rates are basis points (1/100 of a percent: 3000 = 30 %).
public struct CommissionPolicy: Hashable, Sendable, Codable {
  /// The commission on paid purchases: 30 %.
  public var standardRate: Int64
  /// The commission under the Small Business Program, and on an auto-renewable subscription
  /// after one year of paid service: 15 %.
  public var reducedRate: Int64
  /// Enrolled in the App Store Small Business Program: every sale at the reduced rate.
  public var smallBusiness: Bool
  /// Tax included in prices by storefront (ISO 3166-1 alpha-3), in basis points: a price of
  /// 1.20 with 2000 (20 %) holds 0.20 of tax, taken out before the commission.
  public var taxRates: [String: Int64]

  public init(
    standardRate: Int64 = 3000, reducedRate: Int64 = 1500, smallBusiness: Bool = false,
    taxRates: [String: Int64] = [:]
  ) {
    self.standardRate = standardRate
    self.reducedRate = reducedRate
    self.smallBusiness = smallBusiness
    self.taxRates = taxRates
  }

  /// Checks every rate is within 0–100 % (tax 0–1000 %).
  public func validated() throws(MetricsError) -> CommissionPolicy {
    for (name, rate) in [("standard", standardRate), ("reduced", reducedRate)]
    where !(0...10_000).contains(rate) {
      throw MetricsError(
        .invalidCommission,
        "the \(name) commission is \(rate) basis points; give 0–10000 (3000 is 30 %)")
    }
    for (storefront, rate) in taxRates where !(0...100_000).contains(rate) {
      throw MetricsError(
        .invalidCommission,
        "the tax rate of \(storefront) is \(rate) basis points; give 0–100000 (2000 is 20 %)")
    }
    return self
  }

  /// Paid service Apple counts towards the reduced rate: one year.
  public static let oneYearOfPaidService: Int64 = 365 * 86_400_000
  /// A gap longer than this starts the count of paid service again (Apple: 60 days).
  public static let serviceGapLimit: Int64 = 60 * 86_400_000

  /// The commission on a sale: reduced for small businesses, and for a subscription period
  /// that starts after a year of paid service.
  public func rate(paidServiceBefore: Int64?) -> Int64 {
    if smallBusiness { return reducedRate }
    if let paidServiceBefore, paidServiceBefore >= Self.oneYearOfPaidService { return reducedRate }
    return standardRate
  }

  /// Estimated proceeds of `amount` (milliunits, may be negative for a refund) sold in
  /// `storefront` at commission `rate`: the tax taken out, then the commission. Rounded half
  /// away from zero to the milliunit.
  public func proceeds(of amount: Int64, storefront: String?, rate: Int64) -> Int64 {
    let tax = storefront.flatMap { taxRates[$0] } ?? 0
    // amount × 10000/(10000+tax) × (10000−rate)/10000, in one division.
    let numerator = Int128(amount) * Int128(10_000 - rate)
    let denominator = Int128(10_000 + tax)
    return Int64(Self.divideRounded(numerator, denominator))
  }

  static func divideRounded(_ numerator: Int128, _ denominator: Int128) -> Int128 {
    let quotient = numerator / denominator
    let remainder = numerator % denominator
    guard remainder != 0 else { return quotient }
    let twice = (remainder < 0 ? -remainder : remainder) * 2
    guard twice >= denominator else { return quotient }
    return numerator < 0 ? quotient - 1 : quotient + 1
  }
}
