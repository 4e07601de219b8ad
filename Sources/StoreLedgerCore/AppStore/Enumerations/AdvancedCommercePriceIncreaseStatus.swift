/// `status` of an Advanced Commerce price increase.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct AdvancedCommercePriceIncreaseStatus: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let scheduled = Self(rawValue: "SCHEDULED")
  public static let pending = Self(rawValue: "PENDING")
  public static let accepted = Self(rawValue: "ACCEPTED")

  public static let knownValues: [Self] = [
    .scheduled, .pending, .accepted,
  ]
}
