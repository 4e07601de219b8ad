import AppStoreServerAPI
import StoreLedgerCore

/// What the backend asks of Apple through the ledger — Look Up Order ID, renewal-date
/// extensions, the webhook check, Finish Transaction — and the offers it signs for the app.
/// Each call is recorded in the log, and safe to retry.
public struct AppleActions: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }
}
