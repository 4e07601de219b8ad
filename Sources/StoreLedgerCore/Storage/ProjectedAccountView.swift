/// One account's view as the projector computed it, ready to store: its summary, the summary's
/// stored JSON, the appends it includes and how long it holds.
public struct ProjectedAccountView: Sendable {
  package var token: String
  /// Appends that named the account when it was read: a stored view never gives way to one
  /// that includes fewer.
  package var changes: Int64
  package var summary: AccountSummary
  package var summaryJSON: String
  package var interval: StableInterval
  /// The account's status history (``StatusHistory``), stored beside the view; nil leaves the
  /// stored one as it is.
  package var history: [StatusTransitionRow]?

  package init(
    token: String, changes: Int64, summary: AccountSummary, summaryJSON: String,
    interval: StableInterval, history: [StatusTransitionRow]? = nil
  ) {
    self.token = token
    self.changes = changes
    self.summary = summary
    self.summaryJSON = summaryJSON
    self.interval = interval
    self.history = history
  }
}
