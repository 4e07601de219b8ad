/// `billingPlanType` / `renewalBillingPlanType` of commitment plans.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct BillingPlanType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let billedUpfront = Self(rawValue: "BILLED_UPFRONT")
  public static let monthly = Self(rawValue: "MONTHLY")

  public static let knownValues: [Self] = [
    .billedUpfront, .monthly,
  ]
}
