import StoreLedgerCore

/// The change feed as its consumers read it: pages after a position (a long poll with a
/// wait), an endless sequence, the head, and the changes derived from the log alone.
public struct ChangeFeedReader: Sendable {
  let feed: any ChangeFeed
  /// Folds an account to derive its changes, and wakes readers when changes are appended.
  let writer: AccountViewWriter
  /// The app the changes are of, named in each record (nil for a single-app deployment).
  let app: String?

  init(feed: any ChangeFeed, writer: AccountViewWriter, app: String?) {
    self.feed = feed
    self.writer = writer
    self.app = app
  }
}
