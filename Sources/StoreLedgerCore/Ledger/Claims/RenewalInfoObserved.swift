/// A verified signed renewal info seen outside a notification.
public struct RenewalInfoObserved: Hashable, Sendable {
  public static let eventType = EventTypes.renewalInfoClaims

  public var renewalInfo: JWSRenewalInfoDecodedPayload

  public init(renewalInfo: JWSRenewalInfoDecodedPayload) {
    self.renewalInfo = renewalInfo
  }
}
