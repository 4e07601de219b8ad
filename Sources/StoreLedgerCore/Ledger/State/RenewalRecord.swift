/// The newest renewal info of one `originalTransactionId` (by `signedDate`): an older one
/// arriving later changes nothing.
public struct RenewalRecord: Hashable, Sendable {
  public var originalTransactionId: String
  public var productId: String?
  public var autoRenewProductId: String?
  public var autoRenewStatus: AutoRenewStatus?
  public var expirationIntent: ExpirationIntent?
  public var isInBillingRetryPeriod: Bool
  public var gracePeriodExpiresDate: Timestamp?
  public var renewalDate: Timestamp?
  public var priceIncreaseStatus: PriceIncreaseStatus?
  public var appAccountToken: String?
  public var signedDate: Timestamp?
  public var source: EventReference

  init?(_ payload: JWSRenewalInfoDecodedPayload, source: EventReference) {
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
    self.source = source
  }

  /// Whether this renewal info replaces `other`: later `signedDate`; ties by content.
  func supersedes(_ other: RenewalRecord) -> Bool {
    let mine = signedDate?.milliseconds ?? .min
    let theirs = other.signedDate?.milliseconds ?? .min
    if mine != theirs { return mine > theirs }
    let left = (
      gracePeriodExpiresDate?.milliseconds ?? .min, renewalDate?.milliseconds ?? .min,
      isInBillingRetryPeriod ? 1 : 0, Int64(autoRenewStatus?.rawValue ?? -1),
      Int64(expirationIntent?.rawValue ?? -1)
    )
    let right = (
      other.gracePeriodExpiresDate?.milliseconds ?? .min, other.renewalDate?.milliseconds ?? .min,
      other.isInBillingRetryPeriod ? 1 : 0, Int64(other.autoRenewStatus?.rawValue ?? -1),
      Int64(other.expirationIntent?.rawValue ?? -1)
    )
    if left != right { return left > right }
    let names = (autoRenewProductId ?? "", productId ?? "", appAccountToken ?? "")
    let otherNames = (
      other.autoRenewProductId ?? "", other.productId ?? "", other.appAccountToken ?? ""
    )
    if names != otherNames { return names > otherNames }
    return source.ordersAfter(other.source)
  }
}
