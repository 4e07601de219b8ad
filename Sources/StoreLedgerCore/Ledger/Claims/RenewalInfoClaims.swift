/// A verified signed renewal info seen outside a notification.
public struct RenewalInfoClaims: Hashable, Sendable {
  public static let eventType = EventTypes.renewalInfoClaims

  public var renewalInfo: JWSRenewalInfoDecodedPayload

  public init(renewalInfo: JWSRenewalInfoDecodedPayload) {
    self.renewalInfo = renewalInfo
  }
}
