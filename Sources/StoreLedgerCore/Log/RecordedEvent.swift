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
  /// The erasure that turned the row into a tombstone (payload `{"erased": id}`, no claims,
  /// no JWS, no metadata); nil for a row as it was appended.
  public let erasedBy: UUID?

  public init(
    streamId: String, streamVersion: Int64, position: FeedPosition, eventId: UUID,
    idempotencyKey: String, eventType: String, environment: String?, appleSignedAt: Date?,
    recordedAt: Date, payload: [UInt8], rawSigned: String?, metadata: [UInt8],
    previousHash: [UInt8], hash: [UInt8], claims: [UInt8]?, erasedBy: UUID? = nil
  ) {
    self.streamId = streamId
    self.streamVersion = streamVersion
    self.position = position
    self.eventId = eventId
    self.idempotencyKey = idempotencyKey
    self.eventType = eventType
    self.environment = environment
    self.appleSignedAt = appleSignedAt
    self.recordedAt = recordedAt
    self.payload = payload
    self.rawSigned = rawSigned
    self.metadata = metadata
    self.previousHash = previousHash
    self.hash = hash
    self.claims = claims
    self.erasedBy = erasedBy
  }
}
