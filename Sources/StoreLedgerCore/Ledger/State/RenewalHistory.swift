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

  mutating func insert(_ record: RenewalRecord) { records.insertInSignedOrder(record) }
}

extension RenewalRecord: SignedOrder {}
