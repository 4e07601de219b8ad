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

  public var facts: RenewalInfoFacts { input.renewalFacts! }

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
