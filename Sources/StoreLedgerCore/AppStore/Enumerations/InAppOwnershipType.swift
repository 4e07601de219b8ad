/// `inAppOwnershipType`: whether the customer bought the product or benefits from Family Sharing.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct InAppOwnershipType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let purchased = Self(rawValue: "PURCHASED")
  public static let familyShared = Self(rawValue: "FAMILY_SHARED")

  public static let knownValues: [Self] = [
    .purchased, .familyShared,
  ]
}
