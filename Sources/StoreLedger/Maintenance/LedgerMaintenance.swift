import Logging
import StoreLedgerCore

/// The operator's work on the whole log: the audit that proves nothing was altered, the
/// rebuild of every account view (at once or in shares), and another reading of evidence a
/// newer release can route.
public struct LedgerMaintenance: Sendable {
  /// The audit's, the rebuild's and the replay's reads and writes beyond the log.
  let maintenance: any MaintenanceStore
  let erasure: any AccountErasureStore
  /// The stored views and change derivations the audit compares.
  let storedViews: any AccountViewStore
  let changes: any ChangeFeed
  /// Folds accounts into their views and derives their changes, as the projector does.
  let views: AccountViewWriter
  /// The audit verifies every stored signature again with the app's verifiers.
  let verifiers: LedgerVerifiers
  /// Routes evidence a newer release can read.
  let ingestion: SignedDataIngest
  let configuration: LedgerConfiguration
  let calls: StorageCalls
  let logger: Logger

  init(
    maintenance: any MaintenanceStore, erasure: any AccountErasureStore,
    storedViews: any AccountViewStore, changes: any ChangeFeed, views: AccountViewWriter,
    verifiers: LedgerVerifiers, ingestion: SignedDataIngest, configuration: LedgerConfiguration,
    calls: StorageCalls, logger: Logger
  ) {
    self.maintenance = maintenance
    self.erasure = erasure
    self.storedViews = storedViews
    self.changes = changes
    self.views = views
    self.verifiers = verifiers
    self.ingestion = ingestion
    self.configuration = configuration
    self.calls = calls
    self.logger = logger
  }
}
