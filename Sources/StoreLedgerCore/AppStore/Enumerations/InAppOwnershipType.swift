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
  /// A seat of a group subscription or an organization's assignment, held by the member
  /// (Apple-hosted invitations, Volume Purchasing).
  public static let assigned = Self(rawValue: "ASSIGNED")

  public static let knownValues: [Self] = [
    .purchased, .familyShared, .assigned,
  ]
}
