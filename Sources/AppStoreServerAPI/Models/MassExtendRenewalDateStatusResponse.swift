import StoreLedgerCore

/// Get Status of Subscription Renewal Date Extensions.
public struct MassExtendRenewalDateStatusResponse: Hashable, Sendable, Codable {
  public var requestIdentifier: String?
  public var complete: Bool?
  public var completeDate: Timestamp?
  public var succeededCount: Int64?
  public var failedCount: Int64?

  public init() {}
}
