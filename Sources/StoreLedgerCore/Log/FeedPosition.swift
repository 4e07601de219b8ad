/// A place in the global feed: the appending transaction's id and the row's sequence number.
/// Feed order is this order; it agrees with version order inside every stream.
public struct FeedPosition: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public let transactionId: UInt64
  public let sequence: Int64

  public init(transactionId: UInt64, sequence: Int64) {
    self.transactionId = transactionId
    self.sequence = sequence
  }

  /// Before every event.
  public static let beginning = FeedPosition(transactionId: 0, sequence: 0)

  public static func < (lhs: FeedPosition, rhs: FeedPosition) -> Bool {
    (lhs.transactionId, lhs.sequence) < (rhs.transactionId, rhs.sequence)
  }

  public var description: String { "\(transactionId)/\(sequence)" }
}
