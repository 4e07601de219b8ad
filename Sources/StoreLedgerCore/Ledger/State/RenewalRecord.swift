/// The fields of a renewal info the projections read, copied out of the payload once and
/// shared by reference.
public final class RenewalFacts: Hashable, Sendable {
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
  /// `originalTransactionId` as the fold keys its subscription.
  public let key: RecordKey
  /// A digest of every field `==` compares: unequal digests settle `==` without comparing
  /// strings.
  let contentDigest: UInt64

  convenience init?(_ payload: JWSRenewalInfoDecodedPayload) {
    self.init(
      originalTransactionId: payload.originalTransactionId, productId: payload.productId,
      autoRenewProductId: payload.autoRenewProductId, autoRenewStatus: payload.autoRenewStatus,
      expirationIntent: payload.expirationIntent,
      isInBillingRetryPeriod: payload.isInBillingRetryPeriod,
      gracePeriodExpiresDate: payload.gracePeriodExpiresDate, renewalDate: payload.renewalDate,
      priceIncreaseStatus: payload.priceIncreaseStatus, appAccountToken: payload.appAccountToken,
      signedDate: payload.signedDate)
  }

  /// From the payload's fields as Apple signed them (a stored payload's are read straight from
  /// its JSON; see RenewalFacts+FlatJSON.swift).
  init?(
    originalTransactionId id: String?, productId: String?, autoRenewProductId: String?,
    autoRenewStatus: AutoRenewStatus?, expirationIntent: ExpirationIntent?,
    isInBillingRetryPeriod: Bool?, gracePeriodExpiresDate: Timestamp?, renewalDate: Timestamp?,
    priceIncreaseStatus: PriceIncreaseStatus?, appAccountToken: String?, signedDate: Timestamp?
  ) {
    guard let id, !id.isEmpty else { return nil }
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
    contentDigest = digest.value
  }

  public static func == (lhs: RenewalFacts, rhs: RenewalFacts) -> Bool {
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
      && lhs.appAccountToken == rhs.appAccountToken
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(originalTransactionId)
    hasher.combine(signedDate)
  }
}

/// One renewal info of a subscription and the event that brought it.
public struct RenewalRecord: Sendable {
  /// The event that brought the renewal info (its facts are read through it, so a record is
  /// two words).
  let input: FoldInput
  /// `signedDate` in milliseconds (`Int64.min` when absent), kept beside the reference: the
  /// fold orders a subscription's renewal infos by it without loading each one's facts.
  let signedMilliseconds: Int64

  /// The renewal info `input` carries.
  init(input: FoldInput) {
    self.input = input
    self.signedMilliseconds = input.renewalFacts!.signedDate?.milliseconds ?? .min
  }

  public var facts: RenewalFacts { input.renewalFacts! }

  public var source: EventReference { input.reference }
  public var originalTransactionId: String { facts.originalTransactionId }
  public var autoRenewProductId: String? { facts.autoRenewProductId }
  public var autoRenewStatus: AutoRenewStatus? { facts.autoRenewStatus }
  public var isInBillingRetryPeriod: Bool { facts.isInBillingRetryPeriod }
  public var gracePeriodExpiresDate: Timestamp? { facts.gracePeriodExpiresDate }
  public var appAccountToken: String? { facts.appAccountToken }
  public var signedDate: Timestamp? { facts.signedDate }

  /// Whether this renewal info replaces `other`: later `signedDate`; ties by content.
  func supersedes(_ other: RenewalRecord) -> Bool {
    if signedMilliseconds != other.signedMilliseconds {
      return signedMilliseconds > other.signedMilliseconds
    }
    let (a, b) = (facts, other.facts)
    let left = (
      a.gracePeriodExpiresDate?.milliseconds ?? .min, a.renewalDate?.milliseconds ?? .min,
      a.isInBillingRetryPeriod ? 1 : 0, Int64(a.autoRenewStatus?.rawValue ?? -1),
      Int64(a.expirationIntent?.rawValue ?? -1)
    )
    let right = (
      b.gracePeriodExpiresDate?.milliseconds ?? .min, b.renewalDate?.milliseconds ?? .min,
      b.isInBillingRetryPeriod ? 1 : 0, Int64(b.autoRenewStatus?.rawValue ?? -1),
      Int64(b.expirationIntent?.rawValue ?? -1)
    )
    if left != right { return left > right }
    let names = (a.autoRenewProductId ?? "", a.productId ?? "", a.appAccountToken ?? "")
    let otherNames = (b.autoRenewProductId ?? "", b.productId ?? "", b.appAccountToken ?? "")
    if names != otherNames { return names > otherNames }
    return input.ordersAfter(other.input)
  }
}

extension RenewalRecord: Hashable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.input == rhs.input && lhs.facts == rhs.facts
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(facts) }
}
