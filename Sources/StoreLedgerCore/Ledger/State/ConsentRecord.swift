/// A parent withdrew consent for a download (`RESCIND_CONSENT`): the earliest notification
/// naming the download decides when.
public struct ConsentRecord: Hashable, Sendable {
  public let appTransactionId: String
  let input: FoldInput

  public var rescindedAt: Timestamp? { input.effectiveDate }
  public var source: EventReference { input.reference }

  func precedes(_ other: ConsentRecord) -> Bool { input.precedes(other.input) }
}
