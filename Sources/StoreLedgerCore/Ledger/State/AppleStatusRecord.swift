/// The newest status Apple reported for a subscription (a notification's `data.status` or Get
/// All Subscription Statuses), kept to cross-check the derived status.
public struct AppleStatusRecord: Hashable, Sendable {
  public var status: SubscriptionStatus
  public var signedDate: Timestamp?
  public var source: EventReference

  func supersedes(_ other: AppleStatusRecord) -> Bool {
    let mine = (signedDate?.milliseconds ?? .min, Int64(status.rawValue))
    let theirs = (other.signedDate?.milliseconds ?? .min, Int64(other.status.rawValue))
    if mine != theirs { return mine > theirs }
    return source.ordersAfter(other.source)
  }
}
