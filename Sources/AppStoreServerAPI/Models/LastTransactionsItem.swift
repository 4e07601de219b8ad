import StoreLedgerCore

/// One subscription (one `originalTransactionId`) in a ``StatusResponse``.
public struct LastTransactionsItem: Hashable, Sendable, Codable {
  public var originalTransactionId: String?
  public var status: SubscriptionStatus?
  public var signedTransactionInfo: String?
  public var signedRenewalInfo: String?

  public init() {}
}
