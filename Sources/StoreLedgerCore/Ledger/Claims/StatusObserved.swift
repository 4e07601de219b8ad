/// One subscription as Get All Subscription Statuses reported it: Apple's status and the
/// newest transaction and renewal info of that `originalTransactionId`.
public struct StatusObserved: Hashable, Sendable {
  public static let eventType = "appstore.status.v1"

  public var originalTransactionId: String
  public var subscriptionGroupIdentifier: String?
  public var status: SubscriptionStatus?
  public var transaction: JWSTransactionDecodedPayload?
  public var renewalInfo: JWSRenewalInfoDecodedPayload?

  public init(
    originalTransactionId: String, subscriptionGroupIdentifier: String? = nil,
    status: SubscriptionStatus? = nil, transaction: JWSTransactionDecodedPayload? = nil,
    renewalInfo: JWSRenewalInfoDecodedPayload? = nil
  ) {
    self.originalTransactionId = originalTransactionId
    self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
    self.status = status
    self.transaction = transaction
    self.renewalInfo = renewalInfo
  }

  /// Apple's time for the observation: the newest signature in it.
  public var signedDate: Timestamp? {
    [transaction?.signedDate, renewalInfo?.signedDate].compactMap { $0 }.max()
  }
}
