/// The environment a payload comes from: `environment`, `receiptType`.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct AppStoreEnvironment: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let production = Self(rawValue: "Production")
  public static let sandbox = Self(rawValue: "Sandbox")
  public static let xcode = Self(rawValue: "Xcode")
  public static let localTesting = Self(rawValue: "LocalTesting")

  public static let knownValues: [Self] = [
    .production, .sandbox, .xcode, .localTesting,
  ]
}
