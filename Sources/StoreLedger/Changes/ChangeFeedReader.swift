import StoreLedgerCore

/// The change feed as its consumers read it: pages after a position (a long poll with a
/// wait), an endless sequence, the head, and the changes derived from the log alone.
public struct ChangeFeedReader: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }
}
