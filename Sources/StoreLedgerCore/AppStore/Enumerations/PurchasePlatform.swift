/// `originalPlatform` of an app transaction.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct PurchasePlatform: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let iOS = Self(rawValue: "iOS")
  public static let macOS = Self(rawValue: "macOS")
  public static let tvOS = Self(rawValue: "tvOS")
  public static let visionOS = Self(rawValue: "visionOS")

  public static let knownValues: [Self] = [
    .iOS, .macOS, .tvOS, .visionOS,
  ]
}
