/// One item of ``EventStore/appendBatch(_:)``: a single event for one stream (expected version
/// "any"), with the account index entries written with it.
public struct BatchAppend: Sendable, Hashable {
  public var event: NewEvent
  public var streamId: String
  public var index: StreamIndex?

  public init(event: NewEvent, streamId: String, index: StreamIndex? = nil) {
    self.event = event
    self.streamId = streamId
    self.index = index
  }
}

extension BatchAppend {
  /// The most events one append (or one batch) takes, on every storage; larger batches are
  /// split by the caller.
  public static let maximumCount = 1000
}
