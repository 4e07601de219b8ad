import StoreLedgerCore

/// The subscriptions of one group in a ``StatusResponse``.
public struct SubscriptionGroupIdentifierItem: Hashable, Sendable, Codable {
  public var subscriptionGroupIdentifier: String?
  public var lastTransactions: [LastTransactionsItem]?

  public init() {}
}
