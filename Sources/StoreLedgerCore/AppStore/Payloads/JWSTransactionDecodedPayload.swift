/// A decoded signed transaction: one purchase, renewal, restore or family-shared grant.
///
/// Apple omits fields that do not apply, and older payloads lack newer fields, so every
/// field is optional. Identifiers are strings even where they look numeric.
public struct JWSTransactionDecodedPayload: Hashable, Sendable, Codable {
  public var transactionId: String?
  public var originalTransactionId: String?
  /// The subscription's original transaction id before an Advanced Commerce migration.
  public var previousOriginalTransactionId: String?
  public var webOrderLineItemId: String?
  public var bundleId: String?
  public var productId: String?
  public var subscriptionGroupIdentifier: String?
  public var type: ProductType?
  public var purchaseDate: Timestamp?
  public var originalPurchaseDate: Timestamp?
  public var expiresDate: Timestamp?
  public var quantity: Int32?
  /// Milliunits of `currency`, already multiplied by `quantity`.
  public var price: Int64?
  public var currency: String?
  public var storefront: String?
  public var storefrontId: String?
  public var appAccountToken: String?
  public var appTransactionId: String?
  public var inAppOwnershipType: InAppOwnershipType?
  public var transactionReason: TransactionReason?
  public var isUpgraded: Bool?
  public var offerType: OfferType?
  public var offerIdentifier: String?
  public var offerDiscountType: OfferDiscountType?
  public var offerPeriod: String?
  public var revocationDate: Timestamp?
  public var revocationReason: RevocationReason?
  public var revocationType: RevocationType?
  /// Milliunits: 100% is 100000.
  public var revocationPercentage: Int32?
  public var signedDate: Timestamp?
  public var environment: AppStoreEnvironment?
  public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?
  public var billingPlanType: BillingPlanType?
  public var commitmentInfo: TransactionCommitmentInfo?
  /// Multiseat (group) purchases only; `quantity` is then the number of seats.
  public var multiSeatInfo: TransactionMultiSeatInfo?
  /// `SEAT_ADDITION` on every transaction of a period the purchaser added seats in.
  public var additionalTransactionReason: AdditionalTransactionReason?

  public init() {}
}
