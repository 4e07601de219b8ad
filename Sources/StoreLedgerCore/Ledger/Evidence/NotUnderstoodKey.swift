/// A notification's place in the list of those not understood: the event that holds it. The
/// list runs newest stored first, in the log's order; a page after a key starts below the
/// event it names (an erased event stays in the log as a tombstone, so a key keeps its place).
public struct NotUnderstoodKey: Sendable, Hashable {
  public var streamId: String
  public var streamVersion: Int64

  public init(streamId: String, streamVersion: Int64) {
    self.streamId = streamId
    self.streamVersion = streamVersion
  }
}
