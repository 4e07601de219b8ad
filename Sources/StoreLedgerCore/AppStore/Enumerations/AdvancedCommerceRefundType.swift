/// `refundType` of an Advanced Commerce refund.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct AdvancedCommerceRefundType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let full = Self(rawValue: "FULL")
  public static let prorated = Self(rawValue: "PRORATED")
  public static let custom = Self(rawValue: "CUSTOM")

  public static let knownValues: [Self] = [
    .full, .prorated, .custom,
  ]
}
