/// `priceIncreaseStatus` of renewal info.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct PriceIncreaseStatus: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let notResponded = Self(rawValue: 0)
  public static let consentedOrNotified = Self(rawValue: 1)

  public static let knownValues: [Self] = [
    .notResponded, .consentedOrNotified,
  ]
}
