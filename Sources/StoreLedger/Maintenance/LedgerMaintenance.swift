import StoreLedgerCore

/// The operator's work on the whole log: the audit that proves nothing was altered, the
/// rebuild of every account view (at once or in shares), and another reading of evidence a
/// newer release can route.
public struct LedgerMaintenance: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }
}
