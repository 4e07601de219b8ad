/// Every renewal info of one `originalTransactionId`, ordered by `signedDate`: at any time
/// the one in force is the newest signed by then, so an older one arriving later never
/// changes a present answer, and past answers see what was current then.
public struct RenewalHistory: Hashable, Sendable {
  /// Oldest first; no two equal.
  public private(set) var records: [RenewalRecord] = []

  /// The newest renewal info.
  public var newest: RenewalRecord? { records.last }

  /// The newest renewal info signed at or before `time`.
  public func inForce(at time: Timestamp) -> RenewalRecord? {
    records.last { ($0.signedDate ?? time) <= time }
  }

  /// Room for a year of monthly renewals before the first reallocation.
  mutating func reserveCapacity(_ count: Int) { records.reserveCapacity(count) }

  mutating func insert(_ record: RenewalRecord) {
    // Usually the newest by signedDate: one comparison of integers and an append.
    if records.isEmpty || record.signedMilliseconds > records[records.count - 1].signedMilliseconds
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
