/// The account the backend linked to a purchase chain; the newest link wins.
public struct LinkRecord: Hashable, Sendable {
  public var appAccountToken: String
  public var linkedAt: Timestamp?
  /// The account the link moved the purchase from; nil unless it is a transfer.
  public var transferredFrom: String?
  let input: FoldInput

  public var source: EventReference { input.reference }

  func supersedes(_ other: LinkRecord) -> Bool {
    let mine = linkedAt?.milliseconds ?? .min
    let theirs = other.linkedAt?.milliseconds ?? .min
    if mine != theirs { return mine > theirs }
    if appAccountToken != other.appAccountToken { return appAccountToken > other.appAccountToken }
    return input.ordersAfter(other.input)
  }
}
