/// What the reducers need of one subscription as Get All Subscription Statuses reported it:
/// Apple's status and the facts of its newest transaction and renewal info.
public struct StatusFacts: Hashable, Sendable, Codable {
  public static let eventType = EventTypes.status

  public var originalTransactionId: String
  public var subscriptionGroupIdentifier: String?
  public var status: SubscriptionStatus?
  public var transaction: TransactionFacts?
  public var renewal: RenewalInfoFacts?

  public init(
    originalTransactionId: String, subscriptionGroupIdentifier: String? = nil,
    status: SubscriptionStatus? = nil, transaction: TransactionFacts? = nil,
    renewal: RenewalInfoFacts? = nil
  ) {
    self.originalTransactionId = originalTransactionId
    self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
    self.status = status
    self.transaction = transaction
    self.renewal = renewal
  }

  /// Apple's time for the observation: the newest signature in it.
  public var signedDate: Timestamp? {
    [transaction?.signedDate, renewal?.signedDate].compactMap { $0 }.max()
  }
}
