import StoreLedgerCore

/// Extend Subscription Renewal Dates for All Active Subscribers (asynchronous).
public struct MassExtendRenewalDateResponse: Hashable, Sendable, Codable {
  public var requestIdentifier: String?

  public init() {}
}
