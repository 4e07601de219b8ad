/// A verified signed renewal info seen outside a notification.
public struct RenewalInfoObserved: Hashable, Sendable {
  public static let eventType = "appstore.renewal_info.v1"

  public var renewalInfo: JWSRenewalInfoDecodedPayload

  public init(renewalInfo: JWSRenewalInfoDecodedPayload) {
    self.renewalInfo = renewalInfo
  }
}
