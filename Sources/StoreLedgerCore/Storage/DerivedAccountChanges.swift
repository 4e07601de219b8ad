/// One account's newly derived changes and where its derivation now stands.
public struct DerivedAccountChanges: Sendable {
  package var token: String
  /// The derivation version read (0 before the first): the append happens only if it is still
  /// the stored one.
  package var expectedVersion: Int64
  package var events: Int64
  package var instant: Timestamp?
  package var due: Timestamp?
  /// The ordinal of the first of ``changes``.
  package var firstOrdinal: Int64
  package var changes: [DerivedChange]

  package init(
    token: String, expectedVersion: Int64, events: Int64, instant: Timestamp?, due: Timestamp?,
    firstOrdinal: Int64, changes: [DerivedChange]
  ) {
    self.token = token
    self.expectedVersion = expectedVersion
    self.events = events
    self.instant = instant
    self.due = due
    self.firstOrdinal = firstOrdinal
    self.changes = changes
  }
}
