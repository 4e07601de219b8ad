/// The newest status Apple reported for a subscription (a notification's `data.status` or Get
/// All Subscription Statuses), kept to cross-check the derived status.
public struct AppleStatusRecord: Hashable, Sendable {
  public var status: SubscriptionStatus
  public var signedDate: Timestamp?
  let input: FoldInput

  public var source: EventReference { input.reference }

  func supersedes(_ other: AppleStatusRecord) -> Bool {
    let mine = (signedDate?.milliseconds ?? .min, Int64(status.rawValue))
    let theirs = (other.signedDate?.milliseconds ?? .min, Int64(other.status.rawValue))
    if mine != theirs { return mine > theirs }
    return input.ordersAfter(other.input)
  }
}
