/// A status Apple signed for a subscription (a notification's `data.status` or Get All
/// Subscription Statuses), with the event that carried it (and the renewal info beside it).
public struct AppleStatusRecord: Hashable, Sendable {
  public var status: SubscriptionStatus
  public var signedDate: Timestamp?
  let input: FoldInput

  public var source: EventReference { input.reference }
  /// The renewal info signed with the status, if the event carried one.
  public var renewal: RenewalInfoFacts? { input.renewalFacts }

  func supersedes(_ other: AppleStatusRecord) -> Bool {
    let mine = (signedDate?.milliseconds ?? .min, Int64(status.rawValue))
    let theirs = (other.signedDate?.milliseconds ?? .min, Int64(other.status.rawValue))
    if mine != theirs { return mine > theirs }
    return input.ordersAfter(other.input)
  }
}
