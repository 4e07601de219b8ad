import Foundation

/// Where appended events landed: one entry per event given, in the order given.
public struct AppendResult: Sendable, Hashable {
  public struct Event: Sendable, Hashable {
    public let idempotencyKey: String
    public let eventId: UUID
    public let streamVersion: Int64
    public let position: FeedPosition
    public let recordedAt: Date

    public init(
      idempotencyKey: String, eventId: UUID, streamVersion: Int64, position: FeedPosition,
      recordedAt: Date
    ) {
      self.idempotencyKey = idempotencyKey
      self.eventId = eventId
      self.streamVersion = streamVersion
      self.position = position
      self.recordedAt = recordedAt
    }
  }

  public let streamId: String
  public let events: [Event]
  /// Every event was already stored (a retried append): nothing new was written.
  public let wasDuplicate: Bool
  /// The accounts indexed under the stream before this append: its events are theirs too
  /// (schema/0019 counts the write for each), whether or not the events name them.
  public var holders: [String]

  public init(streamId: String, events: [Event], wasDuplicate: Bool, holders: [String] = []) {
    self.streamId = streamId
    self.events = events
    self.wasDuplicate = wasDuplicate
    self.holders = holders
  }

  /// The stream's version after this append, as far as its events go.
  public var lastVersion: Int64 { events.map(\.streamVersion).max() ?? 0 }
}
