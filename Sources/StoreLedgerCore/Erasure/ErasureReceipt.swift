import Foundation

/// What an erasure did.
public struct ErasureReceipt: Sendable, Hashable, Encodable {
  public enum Outcome: String, Sendable, Hashable, Encodable {
    /// The accounts' rows are tombstones now, their derived rows gone.
    case erased
    /// The accounts were erased before and nothing names them since: nothing changed.
    case alreadyErased = "already_erased"
  }

  public let outcome: Outcome
  /// The erasure that erased them (for ``Outcome/alreadyErased``, the earlier one).
  public let erasureId: UUID
  /// Rows of the log turned into tombstones, and the streams they were in.
  public let erasedRows: Int64
  public let erasedStreams: Int64
  /// SHA-256 over the erased rows' hashes in feed order (hex); the erasure event records it
  /// and the audit recomputes it.
  public let rowsDigest: String?
  public let erasedAt: Date?

  public init(
    outcome: Outcome, erasureId: UUID, erasedRows: Int64, erasedStreams: Int64,
    rowsDigest: String?, erasedAt: Date?
  ) {
    self.outcome = outcome
    self.erasureId = erasureId
    self.erasedRows = erasedRows
    self.erasedStreams = erasedStreams
    self.rowsDigest = rowsDigest
    self.erasedAt = erasedAt
  }

  private enum Keys: String, CodingKey {
    case outcome, erasureId, erasedRows, erasedStreams, rowsDigest, erasedAt
  }

  /// Instants as Unix milliseconds, as every StoreLedger answer.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(outcome, forKey: .outcome)
    try container.encode(erasureId.uuidString.lowercased(), forKey: .erasureId)
    try container.encode(erasedRows, forKey: .erasedRows)
    try container.encode(erasedStreams, forKey: .erasedStreams)
    try container.encodeIfPresent(rowsDigest, forKey: .rowsDigest)
    try container.encodeIfPresent(erasedAt.map(Timestamp.init), forKey: .erasedAt)
  }
}
