/// The fields of a renewal info the projections read: part of the stored event, with Apple's
/// member names; shared by reference.
public final class RenewalInfoFacts: Hashable, Sendable {
  public let originalTransactionId: String
  public let productId: String?
  public let autoRenewProductId: String?
  public let autoRenewStatus: AutoRenewStatus?
  public let expirationIntent: ExpirationIntent?
  public let isInBillingRetryPeriod: Bool
  public let gracePeriodExpiresDate: Timestamp?
  public let renewalDate: Timestamp?
  public let priceIncreaseStatus: PriceIncreaseStatus?
  public let appAccountToken: String?
  public let signedDate: Timestamp?
  /// The next period's price (Apple's `renewalPrice`), currency, offer and environment (event
  /// types `*.v3` on); nil before.
  public let terms: PriceTerms?
  /// The next term's billing plan, commitment renewal and seats, when Apple signed any.
  public let plan: RenewalPlan?
  /// `originalTransactionId` as the fold keys its subscription.
  public let key: RecordKey
  /// A digest of every field `==` compares: unequal digests settle `==` without comparing
  /// strings.
  let contentDigest: UInt64

  /// Nil without an original transaction id. Made from Apple's claims (AppleClaims+Facts.swift)
  /// or read back from the log.
  package init?(
    originalTransactionId id: String?, productId: String?, autoRenewProductId: String?,
    autoRenewStatus: AutoRenewStatus?, expirationIntent: ExpirationIntent?,
    isInBillingRetryPeriod: Bool?, gracePeriodExpiresDate: Timestamp?, renewalDate: Timestamp?,
    priceIncreaseStatus: PriceIncreaseStatus?, appAccountToken: String?, signedDate: Timestamp?,
    terms: PriceTerms? = nil, plan: RenewalPlan? = nil
  ) {
    guard let id, !id.isEmpty else { return nil }
    self.terms = terms
    self.plan = plan
    originalTransactionId = id
    self.productId = productId
    self.autoRenewProductId = autoRenewProductId
    self.autoRenewStatus = autoRenewStatus
    self.expirationIntent = expirationIntent
    self.isInBillingRetryPeriod = isInBillingRetryPeriod ?? false
    self.gracePeriodExpiresDate = gracePeriodExpiresDate
    self.renewalDate = renewalDate
    self.priceIncreaseStatus = priceIncreaseStatus
    self.appAccountToken = appAccountToken.flatMap {
      $0.isEmpty ? nil : AppAccountToken.normalized($0)
    }
    self.signedDate = signedDate
    key = RecordKey(id)
    // Field by field rather than over array literals: this runs once per stored event.
    var digest = StableDigest()
    digest.add(id)
    digest.add(productId)
    digest.add(autoRenewProductId)
    digest.add(self.appAccountToken)
    digest.add(signedDate?.milliseconds)
    digest.add(gracePeriodExpiresDate?.milliseconds)
    digest.add(renewalDate?.milliseconds)
    digest.add(autoRenewStatus.map { Int64($0.rawValue) })
    digest.add(expirationIntent.map { Int64($0.rawValue) })
    digest.add(priceIncreaseStatus.map { Int64($0.rawValue) })
    digest.add(Int64(self.isInBillingRetryPeriod ? 1 : 0))
    // Only when present: facts without terms keep the digest they had.
    terms?.add(to: &digest)
    plan?.add(to: &digest)
    contentDigest = digest.value
  }

  public static func == (lhs: RenewalInfoFacts, rhs: RenewalInfoFacts) -> Bool {
    if lhs === rhs { return true }
    if lhs.contentDigest != rhs.contentDigest { return false }
    return lhs.originalTransactionId == rhs.originalTransactionId
      && lhs.signedDate == rhs.signedDate && lhs.productId == rhs.productId
      && lhs.autoRenewProductId == rhs.autoRenewProductId
      && lhs.autoRenewStatus == rhs.autoRenewStatus
      && lhs.expirationIntent == rhs.expirationIntent
      && lhs.isInBillingRetryPeriod == rhs.isInBillingRetryPeriod
      && lhs.gracePeriodExpiresDate == rhs.gracePeriodExpiresDate
      && lhs.renewalDate == rhs.renewalDate && lhs.priceIncreaseStatus == rhs.priceIncreaseStatus
      && lhs.appAccountToken == rhs.appAccountToken && lhs.terms == rhs.terms
      && lhs.plan == rhs.plan
  }

  /// The same facts without terms: what a `*.v2` row stored of the same claims (they predate
  /// the 2026 members too).
  public func withoutTerms() -> RenewalInfoFacts {
    guard terms != nil else { return self }
    return keeping(terms: nil)
  }

  /// The same facts without the members facts gained in 2026 (the plan): what a row stored
  /// before kept.
  public func withoutLaterMembers() -> RenewalInfoFacts {
    guard plan != nil else { return self }
    return keeping(terms: terms)
  }

  /// These facts with `terms` and without the 2026 members.
  private func keeping(terms: PriceTerms?) -> RenewalInfoFacts {
    RenewalInfoFacts(
      originalTransactionId: originalTransactionId, productId: productId,
      autoRenewProductId: autoRenewProductId, autoRenewStatus: autoRenewStatus,
      expirationIntent: expirationIntent, isInBillingRetryPeriod: isInBillingRetryPeriod,
      gracePeriodExpiresDate: gracePeriodExpiresDate, renewalDate: renewalDate,
      priceIncreaseStatus: priceIncreaseStatus, appAccountToken: appAccountToken,
      signedDate: signedDate, terms: terms)!
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(originalTransactionId)
    hasher.combine(signedDate)
  }
}

extension RenewalInfoFacts: Codable {
  private enum Keys: String, CodingKey {
    case originalTransactionId, productId, autoRenewProductId, autoRenewStatus
    case expirationIntent, isInBillingRetryPeriod, gracePeriodExpiresDate, renewalDate
    case priceIncreaseStatus, appAccountToken, signedDate
  }

  public convenience init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    guard
      let id = try container.decodeIfPresent(String.self, forKey: .originalTransactionId),
      !id.isEmpty
    else {
      throw DecodingError.dataCorruptedError(
        forKey: .originalTransactionId, in: container,
        debugDescription: "a renewal info needs its originalTransactionId")
    }
    self.init(
      originalTransactionId: id,
      productId: try container.decodeIfPresent(String.self, forKey: .productId),
      autoRenewProductId: try container.decodeIfPresent(String.self, forKey: .autoRenewProductId),
      autoRenewStatus: try container.decodeIfPresent(
        AutoRenewStatus.self, forKey: .autoRenewStatus),
      expirationIntent: try container.decodeIfPresent(
        ExpirationIntent.self, forKey: .expirationIntent),
      isInBillingRetryPeriod: try container.decodeIfPresent(
        Bool.self, forKey: .isInBillingRetryPeriod),
      gracePeriodExpiresDate: try container.decodeIfPresent(
        Timestamp.self, forKey: .gracePeriodExpiresDate),
      renewalDate: try container.decodeIfPresent(Timestamp.self, forKey: .renewalDate),
      priceIncreaseStatus: try container.decodeIfPresent(
        PriceIncreaseStatus.self, forKey: .priceIncreaseStatus),
      appAccountToken: try container.decodeIfPresent(String.self, forKey: .appAccountToken),
      signedDate: try container.decodeIfPresent(Timestamp.self, forKey: .signedDate),
      terms: try PriceTerms(from: decoder, priceMember: "renewalPrice"),
      plan: try RenewalPlan(from: decoder))!
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(originalTransactionId, forKey: .originalTransactionId)
    try container.encodeIfPresent(productId, forKey: .productId)
    try container.encodeIfPresent(autoRenewProductId, forKey: .autoRenewProductId)
    try container.encodeIfPresent(autoRenewStatus, forKey: .autoRenewStatus)
    try container.encodeIfPresent(expirationIntent, forKey: .expirationIntent)
    if isInBillingRetryPeriod { try container.encode(true, forKey: .isInBillingRetryPeriod) }
    try container.encodeIfPresent(gracePeriodExpiresDate, forKey: .gracePeriodExpiresDate)
    try container.encodeIfPresent(renewalDate, forKey: .renewalDate)
    try container.encodeIfPresent(priceIncreaseStatus, forKey: .priceIncreaseStatus)
    try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
    try container.encodeIfPresent(signedDate, forKey: .signedDate)
    try terms?.encode(to: encoder, priceMember: "renewalPrice")
    try plan?.encode(to: encoder)
  }
}
