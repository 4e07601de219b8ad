/// How the current period of a subscription is billed (reference §8.12): a monthly plan with
/// a 12-month commitment says which payment this is, when the commitment ends and whether it
/// renews. Access still follows each month's `expiresDate`; the commitment's end is shown, not
/// entitled from.
public struct BillingPlanView: Hashable, Sendable, Encodable {
  /// `MONTHLY` (a commitment plan) or `BILLED_UPFRONT`.
  public var type: String
  /// Which payment of the commitment the current period is (e.g. 3 of 12).
  public var billingPeriodNumber: Int32?
  public var totalBillingPeriods: Int32?
  /// The end of the whole commitment (it moves after a late billing recovery).
  public var commitmentExpiresDate: Timestamp?
  /// The whole commitment's price, in milliunits of the transaction's currency.
  public var commitmentPrice: Int64?
  /// Whether the commitment renews after its last payment (Apple's
  /// `commitmentAutoRenewStatus`); nil when the renewal info does not say.
  public var commitmentWillRenew: Bool?
  public var commitmentRenewalProductId: String?
  public var commitmentRenewalBillingPlanType: String?
  public var commitmentRenewalDate: Timestamp?
  /// The customer cancelled inside the commitment: the remaining months are still billed and
  /// entitle, and access ends with the commitment (not with this month).
  public var cancelledInsideCommitment: Bool

  public init(
    type: String, billingPeriodNumber: Int32? = nil, totalBillingPeriods: Int32? = nil,
    commitmentExpiresDate: Timestamp? = nil, commitmentPrice: Int64? = nil,
    commitmentWillRenew: Bool? = nil, commitmentRenewalProductId: String? = nil,
    commitmentRenewalBillingPlanType: String? = nil, commitmentRenewalDate: Timestamp? = nil,
    cancelledInsideCommitment: Bool = false
  ) {
    self.type = type
    self.billingPeriodNumber = billingPeriodNumber
    self.totalBillingPeriods = totalBillingPeriods
    self.commitmentExpiresDate = commitmentExpiresDate
    self.commitmentPrice = commitmentPrice
    self.commitmentWillRenew = commitmentWillRenew
    self.commitmentRenewalProductId = commitmentRenewalProductId
    self.commitmentRenewalBillingPlanType = commitmentRenewalBillingPlanType
    self.commitmentRenewalDate = commitmentRenewalDate
    self.cancelledInsideCommitment = cancelledInsideCommitment
  }

  /// The plan of `transaction`'s period, with what the renewal info in force says of the
  /// commitment's renewal; nil when Apple signed no plan for it.
  init?(_ transaction: TransactionFacts, renewal: RenewalInfoFacts?) {
    guard let plan = transaction.plan,
      let type = plan.billingPlanType ?? (plan.commitment != nil ? .monthly : nil)
    else { return nil }
    let next = plan.isCommitment ? renewal?.plan?.commitment : nil
    let willRenew = next?.commitmentAutoRenewStatus.map { $0 == .on }
    self.init(
      type: type.rawValue, billingPeriodNumber: plan.commitment?.billingPeriodNumber,
      totalBillingPeriods: plan.commitment?.totalBillingPeriods,
      commitmentExpiresDate: plan.commitment?.commitmentExpiresDate,
      commitmentPrice: plan.commitment?.commitmentPrice, commitmentWillRenew: willRenew,
      commitmentRenewalProductId: next?.commitmentAutoRenewProductId,
      commitmentRenewalBillingPlanType: next?.commitmentRenewalBillingPlanType?.rawValue,
      commitmentRenewalDate: next?.commitmentRenewalDate,
      cancelledInsideCommitment: willRenew == false)
  }
}

extension BillingPlanView {
  /// Every member, `null` when absent (as the stored views write it).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(type, forKey: "type")
    try container.encode(billingPeriodNumber, forKey: "billingPeriodNumber")
    try container.encode(totalBillingPeriods, forKey: "totalBillingPeriods")
    try container.encode(commitmentExpiresDate, forKey: "commitmentExpiresDate")
    try container.encode(commitmentPrice, forKey: "commitmentPrice")
    try container.encode(commitmentWillRenew, forKey: "commitmentWillRenew")
    try container.encode(commitmentRenewalProductId, forKey: "commitmentRenewalProductId")
    try container.encode(
      commitmentRenewalBillingPlanType, forKey: "commitmentRenewalBillingPlanType")
    try container.encode(commitmentRenewalDate, forKey: "commitmentRenewalDate")
    try container.encode(cancelledInsideCommitment, forKey: "cancelledInsideCommitment")
  }
}
