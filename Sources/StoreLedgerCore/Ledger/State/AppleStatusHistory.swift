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

  mutating func insert(_ record: AppleStatusRecord) {
    // Usually the newest: one comparison and an append (room for a few at the first, as a
    // subscription's notifications each bring one).
    if records.isEmpty {
      records.reserveCapacity(8)
      records.append(record)
      return
    }
    if let last = records.last,
      (record.signedDate?.milliseconds ?? .min) > (last.signedDate?.milliseconds ?? .min)
    {
      records.append(record)
      return
    }
    var index = records.endIndex
    while index > records.startIndex, !record.supersedes(records[index - 1]) {
      index -= 1
    }
    if index > records.startIndex, records[index - 1] == record { return }
    if index < records.endIndex, records[index] == record { return }
    records.insert(record, at: index)
  }
}
