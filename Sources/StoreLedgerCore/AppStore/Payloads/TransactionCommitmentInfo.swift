/// `commitmentInfo` of a transaction on a monthly plan with a 12-month commitment.
public struct TransactionCommitmentInfo: Hashable, Sendable, Codable {
  public var billingPeriodNumber: Int32?
  public var commitmentExpiresDate: Timestamp?
  public var commitmentPrice: Int64?
  public var totalBillingPeriods: Int32?

  public init() {}
}
