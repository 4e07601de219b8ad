/// `invitationManagement` of a multiseat (group) subscription: who runs the invitations.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct InvitationManagement: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Apple-hosted invitations: each member who joins gets a transaction of their own
  /// (`inAppOwnershipType = ASSIGNED`).
  public static let apple = Self(rawValue: "APPLE")
  /// Developer-hosted invitations: members get no transaction; the developer's server claims
  /// and releases seats (Claim Seat, Unclaim Seat) and its claims are their access.
  public static let developer = Self(rawValue: "DEVELOPER")

  public static let knownValues: [Self] = [.apple, .developer]
}
