/// `autoRenewStatus` of renewal info.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct AutoRenewStatus: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let off = Self(rawValue: 0)
  public static let on = Self(rawValue: 1)

  public static let knownValues: [Self] = [
    .off, .on,
  ]
}
