import StoreLedgerCore

/// What support and operations ask of the whole ledger: finding a customer by any id they
/// hold, the overview, every account and the log's counts, an account's newest changes.
public struct SupportQueries: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }
}
