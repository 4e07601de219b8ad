import Foundation

/// An erasure as the log records it (event `ledger.account_erased.v1` in stream `erasures`),
/// beside what the log holds now: the rows that name it as their eraser, counted and digested
/// again. The two agree unless someone marked or unmarked rows outside an erasure.
public struct ErasureRecord: Sendable, Hashable, Encodable {
  public let erasureId: UUID
  public let requestedBy: String
  public let reason: String
  public let later: LaterDataRule?
  public let accounts: Int64
  public let erasedAt: Date
  /// What the erasure event says it erased.
  public let recordedRows: Int64
  public let recordedStreams: Int64
  public let recordedDigest: String
  /// What the log holds now.
  public let foundRows: Int64
  public let foundDigest: String

  public init(
    erasureId: UUID, requestedBy: String, reason: String, later: LaterDataRule?, accounts: Int64,
    erasedAt: Date, recordedRows: Int64, recordedStreams: Int64, recordedDigest: String,
    foundRows: Int64, foundDigest: String
  ) {
    self.erasureId = erasureId
    self.requestedBy = requestedBy
    self.reason = reason
    self.later = later
    self.accounts = accounts
    self.erasedAt = erasedAt
    self.recordedRows = recordedRows
    self.recordedStreams = recordedStreams
    self.recordedDigest = recordedDigest
    self.foundRows = foundRows
    self.foundDigest = foundDigest
  }

  /// Whether the log's erased rows are exactly those the erasure recorded.
  public var isIntact: Bool { recordedRows == foundRows && recordedDigest == foundDigest }

  private enum Keys: String, CodingKey {
    case erasureId, requestedBy, reason, later, accounts, erasedAt, erasedRows, erasedStreams
    case rowsDigest, intact
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(erasureId.uuidString.lowercased(), forKey: .erasureId)
    try container.encode(requestedBy, forKey: .requestedBy)
    try container.encode(reason, forKey: .reason)
    try container.encodeIfPresent(later, forKey: .later)
    try container.encode(accounts, forKey: .accounts)
    try container.encode(Timestamp(erasedAt), forKey: .erasedAt)
    try container.encode(recordedRows, forKey: .erasedRows)
    try container.encode(recordedStreams, forKey: .erasedStreams)
    try container.encode(recordedDigest, forKey: .rowsDigest)
    try container.encode(isIntact, forKey: .intact)
  }
}
