import StoreLedgerCore

/// Apple's refund requests as the log holds them: each request with its answer and Apple's
/// decision, what the ledger knows of the purchase, what a policy answers from it, and the
/// counts `/metrics` reports.
public struct ConsumptionRequests: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }
}
