/// How far an account's changes are derived (`storeledger.change_derivations`); all nil
/// before the first derivation.
public struct ChangeDerivationMarker: Sendable, Hashable {
  package var version: Int64?
  package var events: Int64?
  package var changes: Int64?
  package var instant: Int64?

  package init(version: Int64?, events: Int64?, changes: Int64?, instant: Int64?) {
    self.version = version
    self.events = events
    self.changes = changes
    self.instant = instant
  }
}
