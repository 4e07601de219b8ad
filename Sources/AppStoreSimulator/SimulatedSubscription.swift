import StoreLedgerCore

/// What the simulated App Store knows of one subscription beyond its transactions: its
/// current renewal info and, when the lifecycle set one, the status Apple would report.
public struct SimulatedSubscription: Sendable, Hashable {
  public var originalTransactionId: String
  public var renewalInfo: JWSRenewalInfoDecodedPayload
  /// Apple's status; nil derives it from the latest transaction at the store's time.
  public var status: SubscriptionStatus?

  public init(
    originalTransactionId: String, renewalInfo: JWSRenewalInfoDecodedPayload,
    status: SubscriptionStatus? = nil
  ) {
    self.originalTransactionId = originalTransactionId
    self.renewalInfo = renewalInfo
    self.status = status
  }
}
