/// Every status Apple signed about one subscription (notifications' `data.status`, Get All
/// Subscription Statuses), ordered by `signedDate`: a question about time T reads the newest
/// signed by T, so a past answer sees what Apple had said then, not what it said later.
public struct AppleStatusHistory: Hashable, Sendable {
  /// Oldest first; no two equal.
  public private(set) var records: [AppleStatusRecord] = []

  public var newest: AppleStatusRecord? { records.last }

  /// The newest status Apple had signed at or before `time`.
  public func inForce(at time: Timestamp) -> AppleStatusRecord? {
    records.last { ($0.signedDate ?? time) <= time }
  }

  /// The first status signed after `record` by another event.
  func next(after record: AppleStatusRecord) -> AppleStatusRecord? {
    let signed = record.signedDate?.milliseconds ?? .min
    return records.first {
      ($0.signedDate?.milliseconds ?? .min) > signed && $0.source != record.source
    }
  }

  mutating func insert(_ record: AppleStatusRecord) { records.insertInSignedOrder(record) }
}

extension AppleStatusRecord: SignedOrder {
  var signedMilliseconds: Int64 { signedDate?.milliseconds ?? .min }
}
