/// `tokenType` of a custom-link external purchase token.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct ExternalPurchaseTokenType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let acquisition = Self(rawValue: "ACQUISITION")
  public static let services = Self(rawValue: "SERVICES")

  public static let knownValues: [Self] = [
    .acquisition, .services,
  ]
}
