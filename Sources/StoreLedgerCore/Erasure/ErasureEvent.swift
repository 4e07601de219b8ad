import Foundation

/// The payload of `ledger.account_erased.v1`, the event an erasure appends to stream
/// `erasures`: who asked, why, what becomes of later data, and what it covers (counts and the
/// SHA-256 of the erased rows' hashes in feed order). No personal data.
public struct ErasureEvent: Sendable, Hashable, Codable {
  public static let stream = "erasures"

  public let erasureId: UUID
  public let requestedBy: String
  public let reason: String
  public let later: String?
  public let accounts: Int64
  public let rows: Int64
  public let streams: Int64
  /// Lowercase hex.
  public let rowsDigest: String
  /// Unix milliseconds.
  public let erasedAt: Int64

  public init(
    erasureId: UUID, requestedBy: String, reason: String, later: LaterDataRule, accounts: Int64,
    rows: Int64, streams: Int64, rowsDigest: String, erasedAt: Date
  ) {
    self.erasureId = erasureId
    self.requestedBy = requestedBy
    self.reason = reason
    self.later = later.rawValue
    self.accounts = accounts
    self.rows = rows
    self.streams = streams
    self.rowsDigest = rowsDigest
    self.erasedAt = Timestamp(erasedAt).milliseconds
  }

  /// Reads a stored erasure event's payload.
  public init(payload: [UInt8]) throws(EventStoreError) {
    do {
      self = try JSONDecoder().decode(Self.self, from: Data(payload))
    } catch {
      throw EventStoreError(.unreadableEvent, "an erasure event does not read as one")
    }
  }

  /// The erasure as recorded, beside the erased rows found for it now.
  public func record(foundRows: Int64, foundDigest: String) -> ErasureRecord {
    ErasureRecord(
      erasureId: erasureId, requestedBy: requestedBy, reason: reason,
      later: later.flatMap(LaterDataRule.init(rawValue:)), accounts: accounts,
      erasedAt: Timestamp(milliseconds: erasedAt).date, recordedRows: rows,
      recordedStreams: streams, recordedDigest: rowsDigest, foundRows: foundRows,
      foundDigest: foundDigest)
  }
}
