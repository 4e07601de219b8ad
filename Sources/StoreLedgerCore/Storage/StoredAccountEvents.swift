/// One account's stored rows, not yet decoded: what a rebuild of the views folds.
public struct StoredAccountEvents: Sendable {
  public var token: String
  /// Appends that named the account.
  public var changes: Int64
  public var rows: [StoredEventRow]

  public init(token: String, changes: Int64, rows: [StoredEventRow] = []) {
    self.token = token
    self.changes = changes
    self.rows = rows
  }
}
