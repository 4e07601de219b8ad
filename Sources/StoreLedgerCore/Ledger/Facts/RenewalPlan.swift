/// What a renewal info says of the next term's plan: the billing plan it renews into, the
/// commitment's own renewal (reference §8.12) and the seats that renew (§8.13). Part of a
/// renewal's facts only when Apple signed one of these members.
public struct RenewalPlan: Hashable, Sendable {
  /// `renewalBillingPlanType`.
  public var billingPlanType: BillingPlanType?
  /// Present while inside a commitment: whether and into what the commitment renews.
  public var commitment: RenewalCommitmentInfo?
  /// `renewalQuantity`: the seats that will renew.
  public var renewalQuantity: Int32?
  public var multiSeat: RenewalMultiSeatInfo?

  /// Nil when the renewal info carries none of these members.
  public init?(
    billingPlanType: BillingPlanType?, commitment: RenewalCommitmentInfo?,
    renewalQuantity: Int32?, multiSeat: RenewalMultiSeatInfo?
  ) {
    guard billingPlanType != nil || commitment != nil || renewalQuantity != nil || multiSeat != nil
    else { return nil }
    self.billingPlanType = billingPlanType
    self.commitment = commitment
    self.renewalQuantity = renewalQuantity
    self.multiSeat = multiSeat
  }

  func add(to digest: inout StableDigest) {
    digest.add(billingPlanType?.rawValue)
    digest.add(commitment?.commitmentAutoRenewStatus.map { Int64($0.rawValue) })
    digest.add(commitment?.commitmentAutoRenewProductId)
    digest.add(commitment?.commitmentRenewalBillingPlanType?.rawValue)
    digest.add(commitment?.commitmentRenewalDate?.milliseconds)
    digest.add(commitment?.commitmentRenewalPrice)
    digest.add(renewalQuantity.map(Int64.init))
    for tier in multiSeat?.renewalPriceTiers ?? [] {
      digest.add(tier.tierPrice)
      digest.add(tier.tierQuantity.map(Int64.init))
    }
  }
}

extension RenewalPlan {
  enum Member: String, CodingKey {
    case renewalBillingPlanType, commitmentInfo, renewalQuantity, multiSeatInfo
  }

  init?(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Member.self)
    self.init(
      billingPlanType: try container.decodeIfPresent(
        BillingPlanType.self, forKey: .renewalBillingPlanType),
      commitment: try container.decodeIfPresent(
        RenewalCommitmentInfo.self, forKey: .commitmentInfo),
      renewalQuantity: try container.decodeIfPresent(Int32.self, forKey: .renewalQuantity),
      multiSeat: try container.decodeIfPresent(RenewalMultiSeatInfo.self, forKey: .multiSeatInfo))
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Member.self)
    try container.encodeIfPresent(billingPlanType, forKey: .renewalBillingPlanType)
    try container.encodeIfPresent(commitment, forKey: .commitmentInfo)
    try container.encodeIfPresent(renewalQuantity, forKey: .renewalQuantity)
    try container.encodeIfPresent(multiSeat, forKey: .multiSeatInfo)
  }
}
