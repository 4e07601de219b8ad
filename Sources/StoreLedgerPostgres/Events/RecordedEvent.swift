import Foundation

/// An event as stored.
public struct RecordedEvent: Sendable, Hashable {
  public let streamId: String
  public let streamVersion: Int64
  public let position: FeedPosition
  public let eventId: UUID
  public let idempotencyKey: String
  public let eventType: String
  public let environment: String?
  public let appleSignedAt: Date?
  public let recordedAt: Date
  /// The event's facts (or, for `appstore.*.v1` rows, Apple's claims), as JSON the way
  /// PostgreSQL normalises `jsonb` (key order and spacing may differ from the input).
  public let payload: [UInt8]
  public let rawSigned: String?
  public let metadata: [UInt8]
  public let previousHash: [UInt8]
  public let hash: [UInt8]
  /// Apple's verified claims the facts were made from (JSON); nil for the backend's commands
  /// and for rows whose payload is the claims.
  public let claims: [UInt8]?
}
