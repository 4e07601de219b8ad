/// `commitmentInfo` of renewal info on a monthly plan with a 12-month commitment.
public struct RenewalCommitmentInfo: Hashable, Sendable, Codable {
  public var commitmentAutoRenewProductId: String?
  public var commitmentAutoRenewStatus: AutoRenewStatus?
  public var commitmentRenewalBillingPlanType: BillingPlanType?
  public var commitmentRenewalDate: Timestamp?
  public var commitmentRenewalPrice: Int64?

  public init() {}
}
