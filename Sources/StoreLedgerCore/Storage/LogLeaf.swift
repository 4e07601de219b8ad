import Foundation

/// One row of the log as a signed checkpoint sees it: its place in feed order and its row hash
/// (the leaf of the checkpoint's Merkle tree), with the stream and version that name it when a
/// check fails.
public struct LogLeaf: Hashable, Sendable {
  public var position: FeedPosition
  public var streamId: String
  public var streamVersion: Int64
  /// The row's `hash`, the end of its stream's hash chain at that version.
  public var hash: [UInt8]

  public init(position: FeedPosition, streamId: String, streamVersion: Int64, hash: [UInt8]) {
    self.position = position
    self.streamId = streamId
    self.streamVersion = streamVersion
    self.hash = hash
  }
}
