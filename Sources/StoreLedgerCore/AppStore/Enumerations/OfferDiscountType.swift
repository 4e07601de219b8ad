/// `offerDiscountType` of a transaction or renewal info.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct OfferDiscountType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let freeTrial = Self(rawValue: "FREE_TRIAL")
  public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")
  public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")
  public static let oneTime = Self(rawValue: "ONE_TIME")

  public static let knownValues: [Self] = [
    .freeTrial, .payAsYouGo, .payUpFront, .oneTime,
  ]
}
