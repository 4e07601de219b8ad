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
  public init?(_ payload: JWSTransactionDecodedPayload) {
    guard let transactionId = payload.transactionId, !transactionId.isEmpty else { return nil }
    self.transactionId = transactionId
    self.originalTransactionId = payload.originalTransactionId ?? transactionId
    self.productId = payload.productId
    self.subscriptionGroupIdentifier = payload.subscriptionGroupIdentifier
    self.type = payload.type
    self.purchaseDate = payload.purchaseDate
    self.expiresDate = payload.expiresDate
    self.quantity = Int64(payload.quantity ?? 1)
    self.appAccountToken = payload.appAccountToken.flatMap { $0.isEmpty ? nil : $0 }
    self.inAppOwnershipType = payload.inAppOwnershipType
    self.isUpgraded = payload.isUpgraded ?? false
    self.revocationDate = payload.revocationDate
    self.revocationReason = payload.revocationReason
    self.revocationType = payload.revocationType
    self.revocationPercentage = payload.revocationPercentage
    self.signedDate = payload.signedDate
    self.signedMilliseconds = payload.signedDate?.milliseconds ?? .min
    self.key = RecordKey(transactionId)
    self.originalKey = RecordKey(originalTransactionId)
    self.contentDigest = Self.digest(payload, transactionId, originalTransactionId)
  }

  private static func digest(
    _ payload: JWSTransactionDecodedPayload, _ transactionId: String, _ originalId: String
  ) -> UInt64 {
    // Field by field rather than over array literals: this runs once per stored event.
    var digest = StableDigest()
    digest.add(transactionId)
    digest.add(originalId)
    digest.add(payload.productId)
    digest.add(payload.subscriptionGroupIdentifier)
    digest.add(payload.type?.rawValue)
    digest.add(payload.appAccountToken.flatMap { $0.isEmpty ? nil : $0 })
    digest.add(payload.inAppOwnershipType?.rawValue)
    digest.add(payload.revocationType?.rawValue)
    digest.add(payload.signedDate?.milliseconds)
    digest.add(payload.purchaseDate?.milliseconds)
    digest.add(payload.expiresDate?.milliseconds)
    digest.add(payload.revocationDate?.milliseconds)
    digest.add(Int64(payload.quantity ?? 1))
    digest.add(Int64((payload.isUpgraded ?? false) ? 1 : 0))
    digest.add(payload.revocationReason.map { Int64($0.rawValue) })
    digest.add(payload.revocationPercentage.map(Int64.init))
    return digest.value
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
