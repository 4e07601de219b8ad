/// How a transaction is billed and shared, from 2026 on: a monthly plan with a 12-month
/// commitment (reference §8.12) and a multiseat (group) purchase (§8.13). Part of a
/// transaction's facts only when Apple signed one of these members, so facts of ordinary
/// transactions (and every row stored before) are unchanged.
public struct TransactionPlan: Hashable, Sendable {
  /// `billingPlanType`: `MONTHLY` for a commitment plan, `BILLED_UPFRONT` otherwise.
  public var billingPlanType: BillingPlanType?
  /// Which payment of the commitment this transaction is, and the commitment's end.
  public var commitment: TransactionCommitmentInfo?
  /// Invitation model, price tiers and seats a refund revoked.
  public var multiSeat: TransactionMultiSeatInfo?
  /// `SEAT_ADDITION`: one of several transactions of one period.
  public var additionalTransactionReason: AdditionalTransactionReason?

  /// Nil when the transaction carries none of these members.
  public init?(
    billingPlanType: BillingPlanType?, commitment: TransactionCommitmentInfo?,
    multiSeat: TransactionMultiSeatInfo?, additionalTransactionReason: AdditionalTransactionReason?
  ) {
    guard
      billingPlanType != nil || commitment != nil || multiSeat != nil
        || additionalTransactionReason != nil
    else { return nil }
    self.billingPlanType = billingPlanType
    self.commitment = commitment
    self.multiSeat = multiSeat
    self.additionalTransactionReason = additionalTransactionReason
  }

  /// A monthly plan with a 12-month commitment.
  public var isCommitment: Bool { billingPlanType == .monthly }

  /// Seats this transaction still covers after seat refunds (nil when not multiseat).
  public func seats(quantity: Int64) -> Int64? {
    guard multiSeat != nil else { return nil }
    return max(0, quantity - Int64(multiSeat?.revokedSeatQuantity ?? 0))
  }

  /// Adds every member to `digest`, in a fixed order.
  func add(to digest: inout StableDigest) {
    digest.add(billingPlanType?.rawValue)
    digest.add(commitment?.billingPeriodNumber.map(Int64.init))
    digest.add(commitment?.totalBillingPeriods.map(Int64.init))
    digest.add(commitment?.commitmentExpiresDate?.milliseconds)
    digest.add(commitment?.commitmentPrice)
    digest.add(multiSeat?.invitationManagement?.rawValue)
    digest.add(multiSeat?.revokedSeatQuantity.map(Int64.init))
    for tier in multiSeat?.priceTiers ?? [] {
      digest.add(tier.tierPrice)
      digest.add(tier.tierQuantity.map(Int64.init))
    }
    digest.add(additionalTransactionReason?.rawValue)
  }
}

extension TransactionPlan {
  enum Member: String, CodingKey {
    case billingPlanType, commitmentInfo, multiSeatInfo, additionalTransactionReason
  }

  /// Read from the members of a transaction's facts; nil when none is there.
  init?(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Member.self)
    self.init(
      billingPlanType: try container.decodeIfPresent(BillingPlanType.self, forKey: .billingPlanType),
      commitment: try container.decodeIfPresent(
        TransactionCommitmentInfo.self, forKey: .commitmentInfo),
      multiSeat: try container.decodeIfPresent(
        TransactionMultiSeatInfo.self, forKey: .multiSeatInfo),
      additionalTransactionReason: try container.decodeIfPresent(
        AdditionalTransactionReason.self, forKey: .additionalTransactionReason))
  }

  /// Written as members of the transaction's facts, with Apple's names.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Member.self)
    try container.encodeIfPresent(billingPlanType, forKey: .billingPlanType)
    try container.encodeIfPresent(commitment, forKey: .commitmentInfo)
    try container.encodeIfPresent(multiSeat, forKey: .multiSeatInfo)
    try container.encodeIfPresent(additionalTransactionReason, forKey: .additionalTransactionReason)
  }
}
