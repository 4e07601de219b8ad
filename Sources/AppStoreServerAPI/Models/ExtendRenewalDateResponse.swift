import StoreLedgerCore

/// Extend a Subscription Renewal Date.
public struct ExtendRenewalDateResponse: Hashable, Sendable, Codable {
  public var originalTransactionId: String?
  public var webOrderLineItemId: String?
  public var success: Bool?
  /// The new expiry.
  public var effectiveDate: Timestamp?

  public init() {}
}
