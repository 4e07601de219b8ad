import AppStoreServerAPI
import StoreLedgerCore

/// What the backend asks of Apple through the ledger — Look Up Order ID, renewal-date
/// extensions, the webhook check, Finish Transaction — and the offers it signs for the app.
/// Each call is recorded in the log, and safe to retry.
public struct AppleActions: Sendable {
  /// Stores what Apple's answers carry (the transactions an order holds).
  let ingestion: SignedDataIngest
  /// Who holds an order's purchases.
  let links: AccountLinks
  /// The accounts' entitlements an order report shows.
  let summaries: AccountSummaries
  let support: any SupportReads
  let log: any EventLog
  let calls: StorageCalls
  let configuration: LedgerConfiguration

  init(
    ingestion: SignedDataIngest, links: AccountLinks, summaries: AccountSummaries,
    support: any SupportReads, log: any EventLog, calls: StorageCalls,
    configuration: LedgerConfiguration
  ) {
    self.ingestion = ingestion
    self.links = links
    self.summaries = summaries
    self.support = support
    self.log = log
    self.calls = calls
    self.configuration = configuration
  }

  /// The account's state folded from the log.
  var reader: AccountReader { summaries.reader }
}
