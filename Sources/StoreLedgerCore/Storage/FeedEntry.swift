import Foundation

/// Where an event sits in the feed, without its content: what a projector that reads the
/// streams itself needs to know.
public struct FeedEntry: Hashable, Sendable {
  public var position: FeedPosition
  public var streamId: String
  public var recordedAt: Date

  public init(position: FeedPosition, streamId: String, recordedAt: Date) {
    self.position = position
    self.streamId = streamId
    self.recordedAt = recordedAt
  }
}
