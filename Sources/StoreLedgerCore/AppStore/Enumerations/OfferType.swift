/// `offerType` of a transaction or renewal info.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct OfferType: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let introductory = Self(rawValue: 1)
  public static let promotional = Self(rawValue: 2)
  public static let offerCode = Self(rawValue: 3)
  public static let winBack = Self(rawValue: 4)

  public static let knownValues: [Self] = [
    .introductory, .promotional, .offerCode, .winBack,
  ]
}
