import Foundation
import StoreLedger

/// Signed checkpoints for one app: the directory they are published in (served at
/// `GET /v1/checkpoints`), and, on the server that signs, the key and how often.
public struct CheckpointSettings: Sendable {
  public var directory: CheckpointDirectory
  /// The signing key; nil on a server that only serves what another signs.
  public var key: CheckpointKey?
  public var interval: Duration
  /// The log's name in each checkpoint.
  public var origin: String
  /// Receivers the newest checkpoint is POSTed to once signed (as JSON).
  public var webhooks: [URL]

  public init(
    directory: CheckpointDirectory, key: CheckpointKey?, interval: Duration = .seconds(60),
    origin: String, webhooks: [URL] = []
  ) {
    self.webhooks = webhooks
    self.directory = directory
    self.key = key
    self.interval = interval
    self.origin = origin
  }
}
