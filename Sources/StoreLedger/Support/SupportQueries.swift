import StoreLedgerCore

/// What support and operations ask of the whole ledger: finding a customer by any id they
/// hold, the overview, every account and the log's counts, an account's newest changes.
public struct SupportQueries: Sendable {
  let support: any SupportReads
  let views: any AccountViewStore
  let changes: any ChangeFeed
  let configuration: LedgerConfiguration
  /// The refund requests' figures of the overview.
  let consumption: ConsumptionRequests
  /// The change webhooks' figures of the overview.
  let deliveryLog: ChangeDeliveryLog
  let calls: StorageCalls

  init(
    support: any SupportReads, views: any AccountViewStore, changes: any ChangeFeed,
    configuration: LedgerConfiguration, consumption: ConsumptionRequests,
    deliveryLog: ChangeDeliveryLog, calls: StorageCalls
  ) {
    self.support = support
    self.views = views
    self.changes = changes
    self.configuration = configuration
    self.consumption = consumption
    self.deliveryLog = deliveryLog
    self.calls = calls
  }
}
