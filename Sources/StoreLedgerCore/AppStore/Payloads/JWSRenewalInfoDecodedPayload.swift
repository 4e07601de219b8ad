/// Decoded signed renewal info: the next renewal of one auto-renewable subscription.
///
/// Renewal info carries no `bundleId`, `transactionId` or `expiresDate`.
public struct JWSRenewalInfoDecodedPayload: Hashable, Sendable, Codable {
  public var originalTransactionId: String?
  public var productId: String?
  public var autoRenewProductId: String?
  public var autoRenewStatus: AutoRenewStatus?
  public var expirationIntent: ExpirationIntent?
  public var isInBillingRetryPeriod: Bool?
  public var gracePeriodExpiresDate: Timestamp?
  public var priceIncreaseStatus: PriceIncreaseStatus?
  public var renewalDate: Timestamp?
  /// Milliunits of `currency`.
  public var renewalPrice: Int64?
  public var currency: String?
  public var offerType: OfferType?
  public var offerIdentifier: String?
  public var offerDiscountType: OfferDiscountType?
  public var offerPeriod: String?
  public var eligibleWinBackOfferIds: [String]?
  public var recentSubscriptionStartDate: Timestamp?
  public var appAccountToken: String?
  public var appTransactionId: String?
  public var signedDate: Timestamp?
  public var environment: AppStoreEnvironment?
  public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?
  public var renewalBillingPlanType: BillingPlanType?
  public var commitmentInfo: RenewalCommitmentInfo?
  /// Multiseat: the seats that will renew (a reduction applies at the next renewal date).
  public var renewalQuantity: Int32?
  /// Multiseat: the next renewal's price tiers.
  public var multiSeatInfo: RenewalMultiSeatInfo?

  public init() {}
}
