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

  init?(_ payload: JWSRenewalInfoDecodedPayload) {
    guard let id = payload.originalTransactionId, !id.isEmpty else { return nil }
    originalTransactionId = id
    productId = payload.productId
    autoRenewProductId = payload.autoRenewProductId
    autoRenewStatus = payload.autoRenewStatus
    expirationIntent = payload.expirationIntent
    isInBillingRetryPeriod = payload.isInBillingRetryPeriod ?? false
    gracePeriodExpiresDate = payload.gracePeriodExpiresDate
    renewalDate = payload.renewalDate
    priceIncreaseStatus = payload.priceIncreaseStatus
    appAccountToken = payload.appAccountToken.flatMap { $0.isEmpty ? nil : $0 }
    signedDate = payload.signedDate
    key = RecordKey(id)
  }

  public static func == (lhs: RenewalFacts, rhs: RenewalFacts) -> Bool {
    if lhs === rhs { return true }
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
public struct RenewalRecord: Hashable, Sendable {
  public let facts: RenewalFacts
  let input: FoldInput

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
    let mine = signedDate?.milliseconds ?? .min
    let theirs = other.signedDate?.milliseconds ?? .min
    if mine != theirs { return mine > theirs }
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
