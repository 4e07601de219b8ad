/// `deliveryStatus` of Send Consumption Information (v2): whether the app delivered the
/// purchase, and if not, why.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct DeliveryStatus: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let delivered = Self(rawValue: "DELIVERED")
  public static let undeliveredQualityIssue = Self(rawValue: "UNDELIVERED_QUALITY_ISSUE")
  public static let undeliveredWrongItem = Self(rawValue: "UNDELIVERED_WRONG_ITEM")
  public static let undeliveredServerOutage = Self(rawValue: "UNDELIVERED_SERVER_OUTAGE")
  public static let undeliveredOther = Self(rawValue: "UNDELIVERED_OTHER")

  public static let knownValues: [Self] = [
    .delivered, .undeliveredQualityIssue, .undeliveredWrongItem, .undeliveredServerOutage,
    .undeliveredOther,
  ]
}
