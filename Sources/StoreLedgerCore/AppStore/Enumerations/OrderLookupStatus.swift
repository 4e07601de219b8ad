/// `status` of Look Up Order ID.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct OrderLookupStatus: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let valid = Self(rawValue: 0)
  public static let invalid = Self(rawValue: 1)

  public static let knownValues: [Self] = [
    .valid, .invalid,
  ]
}
