/// `refundPreference` of Send Consumption Information (v2): what the developer would like
/// Apple to decide.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct RefundPreference: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let decline = Self(rawValue: "DECLINE")
  public static let grantFull = Self(rawValue: "GRANT_FULL")
  public static let grantProrated = Self(rawValue: "GRANT_PRORATED")

  public static let knownValues: [Self] = [.decline, .grantFull, .grantProrated]
}
