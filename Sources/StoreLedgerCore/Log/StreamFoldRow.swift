import Foundation

/// One stored event as a fold reads it: where it is, when it was recorded, its type, payload
/// and key. The signed original, the claims and the metadata stay in the database: a
/// projector that folds whole chains on every batch would otherwise carry kilobytes of each
/// row it never looks at.
public struct StreamFoldRow: Sendable {
  public var streamId: String
  public var position: FeedPosition
  public var recordedAt: Date
  public var eventType: String
  public var payload: [UInt8]
  public var idempotencyKey: String
  /// The erasure that turned the row into a tombstone; nil for a row as appended.
  public var erasedBy: UUID?

  public init(
    streamId: String, position: FeedPosition, recordedAt: Date, eventType: String,
    payload: [UInt8], idempotencyKey: String, erasedBy: UUID?
  ) {
    self.streamId = streamId
    self.position = position
    self.recordedAt = recordedAt
    self.eventType = eventType
    self.payload = payload
    self.idempotencyKey = idempotencyKey
    self.erasedBy = erasedBy
  }

  public init(_ event: RecordedEvent) {
    self.init(
      streamId: event.streamId, position: event.position, recordedAt: event.recordedAt,
      eventType: event.eventType, payload: event.payload, idempotencyKey: event.idempotencyKey,
      erasedBy: event.erasedBy)
  }
}
