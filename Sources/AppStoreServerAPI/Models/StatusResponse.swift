import StoreLedgerCore

/// Get All Subscription Statuses: the latest transaction and renewal info per subscription.
public struct StatusResponse: Hashable, Sendable, Codable {
  public var environment: AppStoreEnvironment?
  public var bundleId: String?
  public var appAppleId: Int64?
  public var data: [SubscriptionGroupIdentifierItem]?

  public init() {}
}
