/// The fields of a signed transaction the projections decide by, copied out of the payload
/// once. Immutable and shared by reference: records and fold inputs copy a pointer, not the
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
  /// `signedDate` in milliseconds, `Int64.min` when absent: how snapshots are ordered.
  let signedMilliseconds: Int64
  /// A digest of every field `==` compares: unequal digests settle `==` and ties without
  /// comparing strings.
  let contentDigest: UInt64
  /// `transactionId` and `originalTransactionId` as the fold keys its records.
  public let key: RecordKey
  public let originalKey: RecordKey

  /// Nil when the payload lacks a transaction id: such a transaction cannot be keyed.
  public convenience init?(_ payload: JWSTransactionDecodedPayload) {
    self.init(
      transactionId: payload.transactionId, originalTransactionId: payload.originalTransactionId,
      productId: payload.productId,
      subscriptionGroupIdentifier: payload.subscriptionGroupIdentifier,
      type: payload.type, purchaseDate: payload.purchaseDate, expiresDate: payload.expiresDate,
      quantity: payload.quantity, appAccountToken: payload.appAccountToken,
      inAppOwnershipType: payload.inAppOwnershipType, isUpgraded: payload.isUpgraded,
      revocationDate: payload.revocationDate, revocationReason: payload.revocationReason,
      revocationType: payload.revocationType, revocationPercentage: payload.revocationPercentage,
      signedDate: payload.signedDate)
  }

  /// From the payload's fields as Apple signed them (a stored payload's are read straight from
  /// its JSON; see TransactionFacts+FlatJSON.swift).
  init?(
    transactionId: String?, originalTransactionId: String?, productId: String?,
    subscriptionGroupIdentifier: String?, type: ProductType?, purchaseDate: Timestamp?,
    expiresDate: Timestamp?, quantity: Int32?, appAccountToken: String?,
    inAppOwnershipType: InAppOwnershipType?, isUpgraded: Bool?, revocationDate: Timestamp?,
    revocationReason: RevocationReason?, revocationType: RevocationType?,
    revocationPercentage: Int32?, signedDate: Timestamp?
  ) {
    guard let transactionId, !transactionId.isEmpty else { return nil }
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
      && lhs.revocationPercentage == rhs.revocationPercentage
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
