import StoreLedgerCore

/// The change webhooks' delivery log, as operators read and replay it: each delivery's
/// attempts, the counts per endpoint, and changes queued again for an endpoint.
public struct ChangeDeliveryLog: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }
}
