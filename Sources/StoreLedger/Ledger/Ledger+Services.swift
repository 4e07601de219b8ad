import AppStoreServerAPI
import AppStoreVerification
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

// Each service built from the ledger's parts: the ports and the small types it uses,
// nothing else. The ledger is their composition root; the services never name it.

extension AccountAliases {
  public init(ledger: Ledger) {
    self.init(aliases: ledger.storage.aliases, calls: ledger.storage.calls)
  }
}

extension AccountErasure {
  public init(ledger: Ledger) {
    self.init(
      store: ledger.storage.erasure, calls: ledger.storage.calls, written: ledger.writer.written)
  }
}

extension AccountLists {
  public init(ledger: Ledger) {
    self.init(support: ledger.storage.support)
  }
}

extension AppleActions {
  public init(ledger: Ledger) {
    self.init(
      ingestion: ledger.ingestion, links: ledger.links, summaries: ledger.summaries,
      support: ledger.storage.support, log: ledger.storage.log, calls: ledger.storage.calls,
      configuration: ledger.configuration)
  }
}

extension ChangeDeliveryLog {
  public init(ledger: Ledger) {
    self.init(
      deliveries: ledger.storage.deliveries, reader: ChangeFeedReader(ledger: ledger),
      calls: ledger.storage.calls)
  }
}

extension ChangeFeedReader {
  public init(ledger: Ledger) {
    self.init(feed: ledger.storage.changes, writer: ledger.views, app: ledger.configuration.app)
  }
}

extension ConsumptionRequests {
  public init(ledger: Ledger) {
    self.init(
      log: ledger.storage.log, index: ledger.storage.index,
      refundRequests: ledger.storage.refundRequests, calls: ledger.storage.calls,
      reader: ledger.reader, consents: RefundConsents(ledger: ledger))
  }
}

extension ConsumptionWorker {
  public init(
    ledger: Ledger, client: AppStoreServerAPIClient,
    configuration: ConsumptionWorkerConfiguration, logger: Logger
  ) {
    self.init(
      requests: ConsumptionRequests(ledger: ledger), client: client,
      configuration: configuration, logger: logger)
  }
}

extension CustomerReplay {
  /// - Parameters:
  ///   - environment: the environment the client's base URL serves (its streams are read).
  ///   - concurrency: customers replayed at once (each makes its calls one after another).
  ///   - databaseWait: how long the replay waits for an unavailable database (a failover
  ///     takes tens of seconds) before it stops.
  public init(
    ledger: Ledger, client: AppStoreServerAPIClient, environment: AppStoreEnvironment,
    concurrency: Int = 4, databaseWait: Duration = .seconds(120), logger: Logger
  ) {
    self.init(
      ingestion: ledger.ingestion, maintenance: LedgerMaintenance(ledger: ledger),
      log: ledger.storage.log, client: client, environment: environment,
      concurrency: concurrency, databaseWait: databaseWait, logger: logger)
  }
}

extension LedgerMaintenance {
  public init(ledger: Ledger) {
    self.init(
      maintenance: ledger.storage.maintenance, erasure: ledger.storage.erasure,
      storedViews: ledger.storage.views, changes: ledger.storage.changes, views: ledger.views,
      verifiers: ledger.verifiers, ingestion: ledger.ingestion,
      configuration: ledger.configuration, calls: ledger.storage.calls,
      logger: ledger.storage.logger)
  }
}

extension ReceiptImport {
  public init(
    ledger: Ledger, client: AppStoreServerAPIClient, environment: AppStoreEnvironment,
    logger: Logger
  ) {
    self.init(
      replay: CustomerReplay(
        ledger: ledger, client: client, environment: environment, concurrency: 1,
        logger: logger),
      links: ledger.links, actions: AppleActions(ledger: ledger), log: ledger.storage.log,
      support: ledger.storage.support, calls: ledger.storage.calls, client: client,
      environment: environment, logger: logger)
  }
}

extension RefundConsents {
  public init(ledger: Ledger) {
    self.init(log: ledger.storage.log, calls: ledger.storage.calls)
  }
}

extension Relays {
  public init(ledger: Ledger) {
    self.init(relays: ledger.storage.relays, log: ledger.storage.log, calls: ledger.storage.calls)
  }
}

extension RevenueProjector {
  public init(
    ledger: Ledger, wakeUp: WakeUpSignal? = nil, batchSize: Int = 2000,
    pollInterval: Duration = .milliseconds(500), logger: Logger
  ) {
    self.init(
      log: ledger.storage.log, revenue: ledger.storage.revenue, wakeUp: wakeUp,
      batchSize: batchSize, pollInterval: pollInterval, logger: logger)
  }
}

extension SeatLedger {
  public init(ledger: Ledger, apple: AppStoreServerAPIClient?) {
    self.init(
      writer: ledger.writer, verifiers: ledger.verifiers, index: ledger.storage.index,
      log: ledger.storage.log, calls: ledger.storage.calls, configuration: ledger.configuration,
      apple: apple)
  }
}

extension SupportGrants {
  public init(ledger: Ledger) {
    self.init(
      reader: ledger.reader, writer: ledger.writer, erasures: AccountErasure(ledger: ledger),
      lists: AccountLists(ledger: ledger))
  }
}

extension SupportQueries {
  public init(ledger: Ledger) {
    self.init(
      support: ledger.storage.support, views: ledger.storage.views,
      changes: ledger.storage.changes, configuration: ledger.configuration,
      consumption: ConsumptionRequests(ledger: ledger),
      deliveryLog: ChangeDeliveryLog(ledger: ledger), calls: ledger.storage.calls)
  }
}

extension Relayer {
  /// `wakeUp`: signalled when this process appends events, so a waiting target goes on at
  /// once (others' appends are found by polling).
  public init(
    ledger: Ledger, wakeUp: WakeUpSignal? = nil, configuration: RelayConfiguration = .init(),
    http: HTTPClient = .shared, logger: Logger
  ) {
    self.init(
      relays: ledger.storage.relays, log: ledger.storage.log, calls: ledger.storage.calls,
      wakeUp: wakeUp, configuration: configuration, http: http, logger: logger)
  }
}

extension ConsoleSignOuts {
  public init(ledger: Ledger) {
    self.init(store: ledger.storage.signOuts, calls: ledger.storage.calls)
  }
}

extension APIKeys {
  public init(ledger: Ledger) {
    self.init(store: ledger.storage.keys, calls: ledger.storage.calls)
  }
}

extension ChangeDeliverer {
  public init(
    ledger: Ledger, configuration: ChangeDeliveryConfiguration, http: HTTPClient = .shared,
    logger: Logger
  ) {
    self.init(
      feed: ledger.storage.changes, deliveries: ledger.storage.deliveries,
      changesAppended: ledger.views.changesAppended, app: ledger.configuration.app,
      configuration: configuration, http: http, logger: logger)
  }
}

extension LedgerMetrics {
  public init(ledger: Ledger, pageSize: Int = 500) {
    self.init(
      log: ledger.storage.log, maintenance: ledger.storage.maintenance,
      revenue: ledger.storage.revenue,
      projector: RevenueProjector(ledger: ledger, logger: ledger.storage.logger),
      logger: ledger.storage.logger, pageSize: pageSize)
  }
}

extension AccountProjector {
  public init(
    ledger: Ledger, wakeUp: WakeUpSignal? = nil, batchSize: Int = 1000,
    pollInterval: Duration = .milliseconds(500), concurrency: Int = 2, logger: Logger
  ) {
    self.init(
      views: ledger.views, log: ledger.storage.log, index: ledger.storage.index, wakeUp: wakeUp,
      batchSize: batchSize, pollInterval: pollInterval, concurrency: concurrency, logger: logger)
  }
}

extension LogCheckpointer {
  public init(
    ledger: Ledger, key: CheckpointKey, directory: CheckpointDirectory, origin: String,
    logger: Logger
  ) {
    self.init(
      maintenance: ledger.storage.maintenance, key: key, directory: directory, origin: origin,
      logger: logger)
  }
}

extension NotificationRecovery {
  public init(
    ledger: Ledger, client: AppStoreServerAPIClient, environment: AppStoreEnvironment? = nil,
    logger: Logger
  ) {
    self.init(
      ingestion: ledger.ingestion, client: client, environment: environment, logger: logger)
  }
}

extension Reconciliation {
  public init(ledger: Ledger, client: AppStoreServerAPIClient, logger: Logger) {
    self.init(
      reader: ledger.reader, writer: ledger.writer, configuration: ledger.configuration,
      client: client, logger: logger)
  }
}
