/// The fields of a signed transaction the projections decide by: part of the stored event
/// (design.md, "Events"), with Apple's member names. Immutable and shared by reference: records and fold inputs copy a pointer, not the
/// fields.
public final class TransactionFacts: Hashable, Sendable {
  public let transactionId: String
  public let originalTransactionId: String
  public let productId: String?
  public let subscriptionGroupIdentifier: String?
  public let type: ProductType?
  public let purchaseDate: Timestamp?
  public let expiresDate: Timestamp?
  public let quantity: Int64
  public let appAccountToken: String?
  public let inAppOwnershipType: InAppOwnershipType?
  public let isUpgraded: Bool
  public let revocationDate: Timestamp?
  public let revocationReason: RevocationReason?
  public let revocationType: RevocationType?
  public let revocationPercentage: Int32?
  public let signedDate: Timestamp?
  /// Price, currency, offer and environment (event types `*.v3` on); nil before.
  public let terms: PriceTerms?
  /// Commitment plan and multiseat members, when Apple signed any; nil otherwise.
  public let plan: TransactionPlan?
  /// The customer's download of the app (one per Apple Account per app), when Apple signed it:
  /// what a `RESCIND_CONSENT` names.
  public let appTransactionId: String?
  /// Apple's `transactionReason`: `PURCHASE` (the customer bought: a first purchase, an
  /// upgrade, a resubscription, seats) or `RENEWAL` (the App Store renewed). What the money
  /// views call a renewal; nil on rows stored before it was kept.
  public let transactionReason: TransactionReason?
  /// `signedDate` in milliseconds, `Int64.min` when absent: how snapshots are ordered.
  let signedMilliseconds: Int64
  /// A digest of every field `==` compares: unequal digests settle `==` and ties without
  /// comparing strings.
  let contentDigest: UInt64
  /// `transactionId` and `originalTransactionId` as the fold keys its records.
  public let key: RecordKey
  public let originalKey: RecordKey

  /// Nil without a transaction id: such a transaction cannot be keyed. Made from Apple's claims
  /// (AppleClaims+Facts.swift) or read back from the log (its `Codable` form below, or the
  /// codec's reader in StoreLedgerPostgres).
  package init?(
    transactionId: String?, originalTransactionId: String?, productId: String?,
    subscriptionGroupIdentifier: String?, type: ProductType?, purchaseDate: Timestamp?,
    expiresDate: Timestamp?, quantity: Int32?, appAccountToken: String?,
    inAppOwnershipType: InAppOwnershipType?, isUpgraded: Bool?, revocationDate: Timestamp?,
    revocationReason: RevocationReason?, revocationType: RevocationType?,
    revocationPercentage: Int32?, signedDate: Timestamp?, terms: PriceTerms? = nil,
    plan: TransactionPlan? = nil, appTransactionId: String? = nil,
    transactionReason: TransactionReason? = nil
  ) {
    guard let transactionId, !transactionId.isEmpty else { return nil }
    self.transactionReason = transactionReason
    self.terms = terms
    self.plan = plan
    self.appTransactionId = appTransactionId.flatMap { $0.isEmpty ? nil : $0 }
    self.transactionId = transactionId
    self.originalTransactionId = originalTransactionId ?? transactionId
    self.productId = productId
    self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
    self.type = type
    self.purchaseDate = purchaseDate
    self.expiresDate = expiresDate
    self.quantity = Int64(quantity ?? 1)
    self.appAccountToken = appAccountToken.flatMap {
      $0.isEmpty ? nil : AppAccountToken.normalized($0)
    }
    self.inAppOwnershipType = inAppOwnershipType
    self.isUpgraded = isUpgraded ?? false
    self.revocationDate = revocationDate
    self.revocationReason = revocationReason
    self.revocationType = revocationType
    self.revocationPercentage = revocationPercentage
    self.signedDate = signedDate
    self.signedMilliseconds = signedDate?.milliseconds ?? .min
    self.key = RecordKey(transactionId)
    self.originalKey = RecordKey(self.originalTransactionId)
    // Field by field rather than over array literals: this runs once per stored event.
    var digest = StableDigest()
    digest.add(transactionId)
    digest.add(self.originalTransactionId)
    digest.add(productId)
    digest.add(subscriptionGroupIdentifier)
    digest.add(type?.rawValue)
    digest.add(self.appAccountToken)
    digest.add(inAppOwnershipType?.rawValue)
    digest.add(revocationType?.rawValue)
    digest.add(signedDate?.milliseconds)
    digest.add(purchaseDate?.milliseconds)
    digest.add(expiresDate?.milliseconds)
    digest.add(revocationDate?.milliseconds)
    digest.add(self.quantity)
    digest.add(Int64(self.isUpgraded ? 1 : 0))
    digest.add(revocationReason.map { Int64($0.rawValue) })
    digest.add(revocationPercentage.map(Int64.init))
    // Only when present: facts without terms keep the digest (and the order) they had.
    terms?.add(to: &digest)
    plan?.add(to: &digest)
    if let appTransactionId = self.appTransactionId { digest.add(appTransactionId) }
    if let transactionReason { digest.add("reason:" + transactionReason.rawValue) }
    self.contentDigest = digest.value
  }

  public static func == (lhs: TransactionFacts, rhs: TransactionFacts) -> Bool {
    if lhs === rhs { return true }
    if lhs.contentDigest != rhs.contentDigest { return false }
    return lhs.transactionId == rhs.transactionId && lhs.signedDate == rhs.signedDate
      && lhs.originalTransactionId == rhs.originalTransactionId && lhs.productId == rhs.productId
      && lhs.subscriptionGroupIdentifier == rhs.subscriptionGroupIdentifier
      && lhs.type == rhs.type && lhs.purchaseDate == rhs.purchaseDate
      && lhs.expiresDate == rhs.expiresDate && lhs.quantity == rhs.quantity
      && lhs.appAccountToken == rhs.appAccountToken
      && lhs.inAppOwnershipType == rhs.inAppOwnershipType && lhs.isUpgraded == rhs.isUpgraded
      && lhs.revocationDate == rhs.revocationDate && lhs.revocationReason == rhs.revocationReason
      && lhs.revocationType == rhs.revocationType
      && lhs.revocationPercentage == rhs.revocationPercentage && lhs.terms == rhs.terms
      && lhs.plan == rhs.plan && lhs.appTransactionId == rhs.appTransactionId
      && lhs.transactionReason == rhs.transactionReason
  }

  /// The same facts without terms: what a `*.v2` row stored of the same claims (they predate
  /// the 2026 members too).
  public func withoutTerms() -> TransactionFacts {
    guard terms != nil else { return self }
    return keeping(terms: nil)
  }

  /// The same facts without the members facts gained in 2026 (the plan, the
  /// appTransactionId, the transactionReason): what a row stored before kept of the same
  /// claims (the audit accepts such a row by this).
  public func withoutLaterMembers() -> TransactionFacts {
    guard plan != nil || appTransactionId != nil || transactionReason != nil else { return self }
    return keeping(terms: terms)
  }

  /// The same facts without `transactionReason` alone: what a row stored with the 2026
  /// members but before the reason was kept holds of the same claims.
  public func withoutTransactionReason() -> TransactionFacts {
    guard transactionReason != nil else { return self }
    return copy(terms: terms, plan: plan, appTransactionId: appTransactionId)
  }

  /// These facts with `terms` and without the 2026 members.
  private func keeping(terms: PriceTerms?) -> TransactionFacts {
    copy(terms: terms, plan: nil, appTransactionId: nil)
  }

  /// These facts with the given optional members, without `transactionReason`.
  private func copy(terms: PriceTerms?, plan: TransactionPlan?, appTransactionId: String?)
    -> TransactionFacts
  {
    TransactionFacts(
      transactionId: transactionId, originalTransactionId: originalTransactionId,
      productId: productId, subscriptionGroupIdentifier: subscriptionGroupIdentifier, type: type,
      purchaseDate: purchaseDate, expiresDate: expiresDate, quantity: Int32(quantity),
      appAccountToken: appAccountToken, inAppOwnershipType: inAppOwnershipType,
      isUpgraded: isUpgraded, revocationDate: revocationDate, revocationReason: revocationReason,
      revocationType: revocationType, revocationPercentage: revocationPercentage,
      signedDate: signedDate, terms: terms, plan: plan, appTransactionId: appTransactionId)!
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(transactionId)
    hasher.combine(signedDate)
  }

  /// Auto-renewable: by type, or by an expiry date when Apple's type is missing or new.
  public var isAutoRenewable: Bool {
    type == .autoRenewableSubscription || (type == nil && expiresDate != nil)
  }

  /// Whether this snapshot replaces `other` as the newest knowledge of the transaction: the
  /// later `signedDate` wins; equal ones are ordered by content, so the winner never depends
  /// on arrival order, and a snapshot never supersedes itself.
  func supersedes(_ other: TransactionFacts) -> Bool {
    if self === other { return false }
    if signedMilliseconds != other.signedMilliseconds {
      return signedMilliseconds > other.signedMilliseconds
    }
    return ordersAfter(other)
  }

  private func ordersAfter(_ other: TransactionFacts) -> Bool {
    let mine = tieBreakKey()
    let theirs = other.tieBreakKey()
    if mine != theirs { return theirs < mine }
    if contentDigest != other.contentDigest { return contentDigest > other.contentDigest }
    return (productId ?? "", appAccountToken ?? "", inAppOwnershipType?.rawValue ?? "")
      > (
        other.productId ?? "", other.appAccountToken ?? "", other.inAppOwnershipType?.rawValue ?? ""
      )
  }

  private func tieBreakKey() -> (Int64, Int64, Int64, Int64, Int64, Int64) {
    (
      revocationDate?.milliseconds ?? .min,
      expiresDate?.milliseconds ?? .min, purchaseDate?.milliseconds ?? .min,
      isUpgraded ? 1 : 0, quantity, Int64(revocationPercentage ?? -1)
    )
  }
}

extension TransactionFacts: Codable {
  private enum Keys: String, CodingKey {
    case transactionId, originalTransactionId, productId, subscriptionGroupIdentifier, type
    case purchaseDate, expiresDate, quantity, appAccountToken, inAppOwnershipType, isUpgraded
    case revocationDate, revocationReason, revocationType, revocationPercentage, signedDate
    case appTransactionId, transactionReason
  }

  public convenience init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    guard let id = try container.decodeIfPresent(String.self, forKey: .transactionId), !id.isEmpty
    else {
      throw DecodingError.dataCorruptedError(
        forKey: .transactionId, in: container, debugDescription: "a transaction needs its id")
    }
    self.init(
      transactionId: id,
      originalTransactionId: try container.decodeIfPresent(
        String.self, forKey: .originalTransactionId),
      productId: try container.decodeIfPresent(String.self, forKey: .productId),
      subscriptionGroupIdentifier: try container.decodeIfPresent(
        String.self, forKey: .subscriptionGroupIdentifier),
      type: try container.decodeIfPresent(ProductType.self, forKey: .type),
      purchaseDate: try container.decodeIfPresent(Timestamp.self, forKey: .purchaseDate),
      expiresDate: try container.decodeIfPresent(Timestamp.self, forKey: .expiresDate),
      quantity: try container.decodeIfPresent(Int32.self, forKey: .quantity),
      appAccountToken: try container.decodeIfPresent(String.self, forKey: .appAccountToken),
      inAppOwnershipType: try container.decodeIfPresent(
        InAppOwnershipType.self, forKey: .inAppOwnershipType),
      isUpgraded: try container.decodeIfPresent(Bool.self, forKey: .isUpgraded),
      revocationDate: try container.decodeIfPresent(Timestamp.self, forKey: .revocationDate),
      revocationReason: try container.decodeIfPresent(
        RevocationReason.self, forKey: .revocationReason),
      revocationType: try container.decodeIfPresent(RevocationType.self, forKey: .revocationType),
      revocationPercentage: try container.decodeIfPresent(
        Int32.self, forKey: .revocationPercentage),
      signedDate: try container.decodeIfPresent(Timestamp.self, forKey: .signedDate),
      terms: try PriceTerms(from: decoder, priceMember: "price"),
      plan: try TransactionPlan(from: decoder),
      appTransactionId: try container.decodeIfPresent(String.self, forKey: .appTransactionId),
      transactionReason: try container.decodeIfPresent(
        TransactionReason.self, forKey: .transactionReason))!
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(transactionId, forKey: .transactionId)
    try container.encode(originalTransactionId, forKey: .originalTransactionId)
    try container.encodeIfPresent(productId, forKey: .productId)
    try container.encodeIfPresent(subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
    try container.encodeIfPresent(type, forKey: .type)
    try container.encodeIfPresent(purchaseDate, forKey: .purchaseDate)
    try container.encodeIfPresent(expiresDate, forKey: .expiresDate)
    try container.encode(quantity, forKey: .quantity)
    try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
    try container.encodeIfPresent(inAppOwnershipType, forKey: .inAppOwnershipType)
    if isUpgraded { try container.encode(true, forKey: .isUpgraded) }
    try container.encodeIfPresent(revocationDate, forKey: .revocationDate)
    try container.encodeIfPresent(revocationReason, forKey: .revocationReason)
    try container.encodeIfPresent(revocationType, forKey: .revocationType)
    try container.encodeIfPresent(revocationPercentage, forKey: .revocationPercentage)
    try container.encodeIfPresent(signedDate, forKey: .signedDate)
    try terms?.encode(to: encoder, priceMember: "price")
    try plan?.encode(to: encoder)
    try container.encodeIfPresent(appTransactionId, forKey: .appTransactionId)
    try container.encodeIfPresent(transactionReason, forKey: .transactionReason)
  }
}
