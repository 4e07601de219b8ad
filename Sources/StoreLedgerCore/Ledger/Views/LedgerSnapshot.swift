/// Every projection at one time: the output of `storeledger fold --json`.
public struct LedgerSnapshot: Hashable, Sendable, Encodable {
  public var asOf: Timestamp
  public var subscriptions: [SubscriptionView]
  public var purchases: [PurchaseView]
  public var consumables: [ConsumableView]
  public var revocations: [RevocationView]
  public var entitlements: [EntitlementView]
  /// Developer-hosted seat claims in force (members of group subscriptions).
  public var seatClaims: [SeatClaimView] = []
  /// Downloads whose consent a parent withdrew by then (`RESCIND_CONSENT`).
  public var consentRescinded: [ConsentView] = []
  /// Operators' grants in force (StoreLedger's own, not Apple's evidence).
  public var supportGrants: [SupportGrantView] = []
}

/// An operator's grant of an entitlement in force at a time.
public struct SupportGrantView: Hashable, Sendable, Codable {
  public var grantId: String
  public var appAccountToken: String
  public var entitlement: String
  public var startsAt: Timestamp?
  /// When it stops if nothing changes; nil: until ended.
  public var endsAt: Timestamp?
  public var reason: String
  public var by: String
  public var batch: String?

  public init(
    grantId: String, appAccountToken: String, entitlement: String, startsAt: Timestamp?,
    endsAt: Timestamp?, reason: String, by: String, batch: String?
  ) {
    self.grantId = grantId
    self.appAccountToken = appAccountToken
    self.entitlement = entitlement
    self.startsAt = startsAt
    self.endsAt = endsAt
    self.reason = reason
    self.by = by
    self.batch = batch
  }
}

/// A download whose consent was withdrawn, the accounts whose purchases it made, and whether
/// the policy ended their entitlements.
public struct ConsentView: Hashable, Sendable, Codable {
  public var appTransactionId: String
  public var rescindedAt: Timestamp?
  /// The accounts holding purchases of this download in the fold (empty when none of its
  /// purchases carries the download: the ledger joined it by the account index).
  public var accounts: [String]
  /// The policy ended the download's entitlements from `rescindedAt` (rule E6).
  public var endsEntitlements: Bool

  public init(
    appTransactionId: String, rescindedAt: Timestamp?, accounts: [String], endsEntitlements: Bool
  ) {
    self.appTransactionId = appTransactionId
    self.rescindedAt = rescindedAt
    self.accounts = accounts
    self.endsEntitlements = endsEntitlements
  }
}

/// A developer-hosted seat claim in force at a time: a member's access to a group subscription.
public struct SeatClaimView: Hashable, Sendable, Codable {
  public var seatClaimId: String
  public var originalTransactionId: String
  /// The member.
  public var appAccountToken: String?
  public var appTransactionId: String?
  public var claimedAt: Timestamp?
  public var requestIdentifier: String

  public init(
    seatClaimId: String, originalTransactionId: String, appAccountToken: String?,
    appTransactionId: String?, claimedAt: Timestamp?, requestIdentifier: String
  ) {
    self.seatClaimId = seatClaimId
    self.originalTransactionId = originalTransactionId
    self.appAccountToken = appAccountToken
    self.appTransactionId = appTransactionId
    self.claimedAt = claimedAt
    self.requestIdentifier = requestIdentifier
  }
}

/// One subscription (`originalTransactionId`) at a time.
public struct SubscriptionView: Hashable, Sendable, Encodable {
  public var originalTransactionId: String
  public var productId: String?
  public var subscriptionGroupIdentifier: String?
  public var appAccountToken: String?
  public var inAppOwnershipType: String?
  public var status: Int32
  public var entitled: Bool
  public var expiresDate: Timestamp?
  public var gracePeriodExpiresDate: Timestamp?
  public var autoRenewStatus: Int32?
  public var autoRenewProductId: String?
  /// From the renewal info in force: why it expired (Apple's `expirationIntent`), the price
  /// increase's state (0: the customer has not responded, 1: accepted or no consent needed),
  /// the next renewal date, and whether Apple is retrying billing.
  public var expirationIntent: Int32?
  public var priceIncreaseStatus: Int32?
  public var renewalDate: Timestamp?
  public var isInBillingRetryPeriod: Bool?
  /// The current period's terms (its transaction's price in milliunits, currency and offer)
  /// and the next period's (the renewal info's `renewalPrice` and currency), with the
  /// environment Apple signed; nil for data stored before facts held them.
  public var environment: String?
  public var price: Int64?
  public var currency: String?
  public var offerType: Int32?
  public var offerIdentifier: String?
  public var offerDiscountType: String?
  public var offerPeriod: String?
  public var renewalPrice: Int64?
  public var renewalCurrency: String?
  /// The App Store country or region (Apple's three-letter `storefront`) of the current period's
  /// transaction, or of the renewal info when the transaction has none.
  public var storefront: String? = nil
  /// Extra: the transaction of the current period, the rule applied, Apple's newest status.
  public var transactionId: String
  public var rule: String
  public var appleStatus: Int32?
  /// How the current period is billed (a 12-month commitment plan); nil when Apple signed no
  /// billing plan.
  public var billingPlan: BillingPlanView? = nil
  /// The current period's seats (a multiseat subscription); nil otherwise.
  public var seats: SeatsView? = nil

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(originalTransactionId, forKey: "originalTransactionId")
    try container.encode(productId, forKey: "productId")
    try container.encode(subscriptionGroupIdentifier, forKey: "subscriptionGroupIdentifier")
    try container.encode(appAccountToken, forKey: "appAccountToken")
    try container.encode(inAppOwnershipType, forKey: "inAppOwnershipType")
    try container.encode(status, forKey: "status")
    try container.encode(entitled, forKey: "entitled")
    try container.encode(expiresDate, forKey: "expiresDate")
    try container.encode(gracePeriodExpiresDate, forKey: "gracePeriodExpiresDate")
    try container.encode(autoRenewStatus, forKey: "autoRenewStatus")
    try container.encode(autoRenewProductId, forKey: "autoRenewProductId")
    try container.encode(expirationIntent, forKey: "expirationIntent")
    try container.encode(priceIncreaseStatus, forKey: "priceIncreaseStatus")
    try container.encode(renewalDate, forKey: "renewalDate")
    try container.encode(isInBillingRetryPeriod, forKey: "isInBillingRetryPeriod")
    try container.encode(environment, forKey: "environment")
    try container.encode(price, forKey: "price")
    try container.encode(currency, forKey: "currency")
    try container.encode(offerType, forKey: "offerType")
    try container.encode(offerIdentifier, forKey: "offerIdentifier")
    try container.encode(offerDiscountType, forKey: "offerDiscountType")
    try container.encode(offerPeriod, forKey: "offerPeriod")
    try container.encode(renewalPrice, forKey: "renewalPrice")
    try container.encode(renewalCurrency, forKey: "renewalCurrency")
    try container.encode(storefront, forKey: "storefront")
    try container.encode(transactionId, forKey: "transactionId")
    try container.encode(rule, forKey: "rule")
    try container.encode(appleStatus, forKey: "appleStatus")
    try container.encode(billingPlan, forKey: "billingPlan")
    try container.encode(seats, forKey: "seats")
  }
}

/// A non-consumable or non-renewing subscription purchase at a time.
public struct PurchaseView: Hashable, Sendable, Encodable {
  public var transactionId: String
  public var originalTransactionId: String
  public var productId: String?
  public var type: String?
  public var appAccountToken: String?
  public var entitled: Bool
  /// Extra: the end of a non-renewing subscription, from the catalog.
  public var expiresDate: Timestamp?
  /// What was paid, under which offer, in which environment (nil for data stored before
  /// facts held them).
  public var environment: String?
  public var price: Int64?
  public var currency: String?
  public var offerType: Int32?
  public var offerIdentifier: String?

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(transactionId, forKey: "transactionId")
    try container.encode(originalTransactionId, forKey: "originalTransactionId")
    try container.encode(productId, forKey: "productId")
    try container.encode(type, forKey: "type")
    try container.encode(appAccountToken, forKey: "appAccountToken")
    try container.encode(entitled, forKey: "entitled")
    try container.encode(expiresDate, forKey: "expiresDate")
    try container.encode(environment, forKey: "environment")
    try container.encode(price, forKey: "price")
    try container.encode(currency, forKey: "currency")
    try container.encode(offerType, forKey: "offerType")
    try container.encode(offerIdentifier, forKey: "offerIdentifier")
  }
}

/// The balance of one consumable for one account at a time, in units.
public struct ConsumableView: Hashable, Sendable, Encodable {
  public var appAccountToken: String?
  public var productId: String
  public var purchased: Int64
  public var refunded: Int64
  public var debited: Int64
  /// The environments Apple signed the counted purchases in (sorted; both when a balance holds
  /// Production and Sandbox units); empty for purchases stored before facts held them.
  public var environments: [String] = []
  public var balance: Int64 { purchased - refunded - debited }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(appAccountToken, forKey: "appAccountToken")
    try container.encode(productId, forKey: "productId")
    try container.encode(purchased, forKey: "purchased")
    try container.encode(refunded, forKey: "refunded")
    try container.encode(debited, forKey: "debited")
    try container.encode(balance, forKey: "balance")
    try container.encode(environments, forKey: "environments")
  }
}

/// A revoked transaction (refund or family revoke), and whether the revocation was reversed.
public struct RevocationView: Hashable, Sendable, Encodable {
  public var transactionId: String
  public var originalTransactionId: String
  public var productId: String?
  public var revocationDate: Timestamp?
  public var revocationReason: Int32?
  public var revocationType: String?
  /// For a partial refund: the share refunded, in thousandths (Apple's `revocationPercentage`).
  public var revocationPercentage: Int32?
  public var reversed: Bool

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(transactionId, forKey: "transactionId")
    try container.encode(originalTransactionId, forKey: "originalTransactionId")
    try container.encode(productId, forKey: "productId")
    try container.encode(revocationDate, forKey: "revocationDate")
    try container.encode(revocationReason, forKey: "revocationReason")
    try container.encode(revocationType, forKey: "revocationType")
    try container.encode(revocationPercentage, forKey: "revocationPercentage")
    try container.encode(reversed, forKey: "reversed")
  }
}

/// One entitlement of one account at a time.
public struct EntitlementView: Hashable, Sendable, Encodable {
  public var appAccountToken: String
  public var entitlement: String
  public var active: Bool
  /// When it ends if nothing changes; nil for purchases that do not expire.
  public var expiresDate: Timestamp?
  /// The transaction that grants it (or last granted it).
  public var source: String
  /// Extra: the rule that decided the source.
  public var rule: String
  /// The environment Apple signed the source in; nil for data stored before facts held it.
  public var environment: String? = nil

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(appAccountToken, forKey: "appAccountToken")
    try container.encode(entitlement, forKey: "entitlement")
    try container.encode(active, forKey: "active")
    try container.encode(expiresDate, forKey: "expiresDate")
    try container.encode(source, forKey: "source")
    try container.encode(rule, forKey: "rule")
    try container.encode(environment, forKey: "environment")
  }
}

/// A coding key from any string, so encoders can write explicit nulls key by key.
struct JSONKey: CodingKey, ExpressibleByStringLiteral {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
  init(stringLiteral value: String) { self.stringValue = value }
}

// Decodable, for answers stored in read models and read back.

extension SubscriptionView: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: JSONKey.self)
    originalTransactionId = try container.decode(String.self, forKey: "originalTransactionId")
    productId = try container.decodeIfPresent(String.self, forKey: "productId")
    subscriptionGroupIdentifier = try container.decodeIfPresent(
      String.self, forKey: "subscriptionGroupIdentifier")
    appAccountToken = try container.decodeIfPresent(String.self, forKey: "appAccountToken")
    inAppOwnershipType = try container.decodeIfPresent(String.self, forKey: "inAppOwnershipType")
    status = try container.decode(Int32.self, forKey: "status")
    entitled = try container.decode(Bool.self, forKey: "entitled")
    expiresDate = try container.decodeIfPresent(Timestamp.self, forKey: "expiresDate")
    gracePeriodExpiresDate = try container.decodeIfPresent(
      Timestamp.self, forKey: "gracePeriodExpiresDate")
    autoRenewStatus = try container.decodeIfPresent(Int32.self, forKey: "autoRenewStatus")
    autoRenewProductId = try container.decodeIfPresent(String.self, forKey: "autoRenewProductId")
    expirationIntent = try container.decodeIfPresent(Int32.self, forKey: "expirationIntent")
    priceIncreaseStatus = try container.decodeIfPresent(Int32.self, forKey: "priceIncreaseStatus")
    renewalDate = try container.decodeIfPresent(Timestamp.self, forKey: "renewalDate")
    isInBillingRetryPeriod = try container.decodeIfPresent(
      Bool.self, forKey: "isInBillingRetryPeriod")
    environment = try container.decodeIfPresent(String.self, forKey: "environment")
    price = try container.decodeIfPresent(Int64.self, forKey: "price")
    currency = try container.decodeIfPresent(String.self, forKey: "currency")
    offerType = try container.decodeIfPresent(Int32.self, forKey: "offerType")
    offerIdentifier = try container.decodeIfPresent(String.self, forKey: "offerIdentifier")
    offerDiscountType = try container.decodeIfPresent(String.self, forKey: "offerDiscountType")
    offerPeriod = try container.decodeIfPresent(String.self, forKey: "offerPeriod")
    renewalPrice = try container.decodeIfPresent(Int64.self, forKey: "renewalPrice")
    renewalCurrency = try container.decodeIfPresent(String.self, forKey: "renewalCurrency")
    storefront = try container.decodeIfPresent(String.self, forKey: "storefront")
    transactionId = try container.decode(String.self, forKey: "transactionId")
    rule = try container.decode(String.self, forKey: "rule")
    appleStatus = try container.decodeIfPresent(Int32.self, forKey: "appleStatus")
    billingPlan = try container.decodeIfPresent(BillingPlanView.self, forKey: "billingPlan")
    seats = try container.decodeIfPresent(SeatsView.self, forKey: "seats")
  }
}

extension BillingPlanView: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: JSONKey.self)
    self.init(
      type: try container.decode(String.self, forKey: "type"),
      billingPeriodNumber: try container.decodeIfPresent(Int32.self, forKey: "billingPeriodNumber"),
      totalBillingPeriods: try container.decodeIfPresent(Int32.self, forKey: "totalBillingPeriods"),
      commitmentExpiresDate: try container.decodeIfPresent(
        Timestamp.self, forKey: "commitmentExpiresDate"),
      commitmentPrice: try container.decodeIfPresent(Int64.self, forKey: "commitmentPrice"),
      commitmentWillRenew: try container.decodeIfPresent(Bool.self, forKey: "commitmentWillRenew"),
      commitmentRenewalProductId: try container.decodeIfPresent(
        String.self, forKey: "commitmentRenewalProductId"),
      commitmentRenewalBillingPlanType: try container.decodeIfPresent(
        String.self, forKey: "commitmentRenewalBillingPlanType"),
      commitmentRenewalDate: try container.decodeIfPresent(
        Timestamp.self, forKey: "commitmentRenewalDate"),
      cancelledInsideCommitment: try container.decodeIfPresent(
        Bool.self, forKey: "cancelledInsideCommitment") ?? false)
  }
}

extension SeatsView: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: JSONKey.self)
    self.init(
      invitationManagement: try container.decodeIfPresent(
        String.self, forKey: "invitationManagement"),
      total: try container.decode(Int64.self, forKey: "total"),
      revoked: try container.decode(Int64.self, forKey: "revoked"),
      claimed: try container.decode(Int64.self, forKey: "claimed"),
      renewalQuantity: try container.decodeIfPresent(Int32.self, forKey: "renewalQuantity"),
      overClaimed: try container.decodeIfPresent([String].self, forKey: "overClaimed") ?? [],
      transactionIds: try container.decodeIfPresent([String].self, forKey: "transactionIds") ?? [])
  }
}

extension ConsumableView: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: JSONKey.self)
    appAccountToken = try container.decodeIfPresent(String.self, forKey: "appAccountToken")
    productId = try container.decode(String.self, forKey: "productId")
    purchased = try container.decode(Int64.self, forKey: "purchased")
    refunded = try container.decode(Int64.self, forKey: "refunded")
    debited = try container.decode(Int64.self, forKey: "debited")
    environments = try container.decodeIfPresent([String].self, forKey: "environments") ?? []
  }
}

extension EntitlementView: Decodable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: JSONKey.self)
    appAccountToken = try container.decode(String.self, forKey: "appAccountToken")
    entitlement = try container.decode(String.self, forKey: "entitlement")
    active = try container.decode(Bool.self, forKey: "active")
    expiresDate = try container.decodeIfPresent(Timestamp.self, forKey: "expiresDate")
    source = try container.decode(String.self, forKey: "source")
    rule = try container.decode(String.self, forKey: "rule")
    environment = try container.decodeIfPresent(String.self, forKey: "environment")
  }
}
