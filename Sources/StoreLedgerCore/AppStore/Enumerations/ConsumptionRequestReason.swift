/// `consumptionRequestReason` of a CONSUMPTION_REQUEST notification.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct ConsumptionRequestReason: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let unintendedPurchase = Self(rawValue: "UNINTENDED_PURCHASE")
  public static let fulfillmentIssue = Self(rawValue: "FULFILLMENT_ISSUE")
  public static let unsatisfiedWithPurchase = Self(rawValue: "UNSATISFIED_WITH_PURCHASE")
  public static let legal = Self(rawValue: "LEGAL")
  public static let other = Self(rawValue: "OTHER")

  public static let knownValues: [Self] = [
    .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other,
  ]
}
