import Logging
import StoreLedgerCore
import StoreLedgerPostgres

/// The ledger's storage as its parts use it: each port in the domain's words, implemented by
/// PostgreSQL (``init(_:logger:)``, one adapter a port) or by any storage offering them all
/// (``init(_:logger:timeout:)``). The ledger and each of its services take the ports they use,
/// never each other's insides.
package struct LedgerStorage: Sendable {
  /// Appends (with their index entries), streams read back, the feed and its checkpoints.
  package let log: any EventLog
  /// The account queries' reads; a replica may answer them.
  package let accounts: any AccountReads
  /// Who holds which streams, refund requests, seats and downloads.
  package let index: any AccountIndex
  /// The stored views and the change derivations the projector keeps.
  package let views: any AccountViewStore
  /// The change feed's reads.
  package let changes: any ChangeFeed
  /// The changes webhooks' deliveries.
  package let deliveries: any ChangeDeliveryQueue
  /// The refund requests by state, id and due time.
  package let refundRequests: any RefundRequestIndex
  /// Support's reads across accounts.
  package let support: any SupportReads
  /// The audit's, the rebuild's and the replay's needs beyond the log.
  package let maintenance: any MaintenanceStore
  /// Each purchase chain's revenue rows (`storeledger_analytics`).
  package let revenue: any RevenueAnalyticsStore
  /// The app's named API keys.
  package let keys: any APIKeyStore
  /// Erasure of accounts' personal data.
  package let erasure: any AccountErasureStore
  /// Relay targets and their queue.
  package let relays: any RelayQueue
  /// The backend's aliases of accounts.
  package let aliases: any AccountAliasStore
  /// Console sign-outs shared by every server of the storage.
  package let signOuts: any ConsoleSignOutStore
  /// Streaming replicas answering reads, if any: told of every write (read-your-writes).
  package let replicas: ReadReplicas?
  /// The PostgreSQL hosts and which accepts writes (nil on other storage).
  package let hosts: DatabaseHosts?
  package let logger: Logger
  /// How long any database work may take (``LedgerConfiguration/databaseTimeout``).
  package let timeout: Duration

  /// Storage on PostgreSQL: one adapter per port on the primary's pool, and replicas that
  /// may answer reads.
  package init(_ database: PostgresLedgerDatabase, logger: Logger) {
    self.init(
      log: database.store, accounts: PostgresAccountReads(database),
      index: PostgresAccountIndex(database), views: PostgresAccountViewStore(database),
      changes: PostgresChangeFeed(database), deliveries: PostgresChangeDeliveryQueue(database),
      refundRequests: PostgresRefundRequestIndex(database),
      support: PostgresSupportReads(database), maintenance: PostgresMaintenanceStore(database),
      revenue: PostgresRevenueAnalyticsStore(database), keys: PostgresAPIKeyStore(database),
      erasure: PostgresAccountErasureStore(database), relays: PostgresRelayQueue(database),
      aliases: PostgresAccountAliasStore(database),
      signOuts: PostgresConsoleSignOutStore(database), replicas: database.replicas,
      hosts: database.hosts, logger: logger, timeout: database.timeout)
  }

  /// Storage offering every port itself (in memory, for example).
  package init(_ storage: some EventLog & LedgerPorts, logger: Logger, timeout: Duration) {
    self.init(
      log: storage, accounts: storage, index: storage, views: storage, changes: storage,
      deliveries: storage, refundRequests: storage, support: storage, maintenance: storage,
      revenue: storage, keys: storage, erasure: storage, relays: storage, aliases: storage,
      signOuts: storage, replicas: nil, hosts: nil, logger: logger, timeout: timeout)
  }

  private init(
    log: any EventLog, accounts: any AccountReads, index: any AccountIndex,
    views: any AccountViewStore, changes: any ChangeFeed, deliveries: any ChangeDeliveryQueue,
    refundRequests: any RefundRequestIndex, support: any SupportReads,
    maintenance: any MaintenanceStore, revenue: any RevenueAnalyticsStore, keys: any APIKeyStore,
    erasure: any AccountErasureStore, relays: any RelayQueue, aliases: any AccountAliasStore,
    signOuts: any ConsoleSignOutStore, replicas: ReadReplicas?, hosts: DatabaseHosts?,
    logger: Logger, timeout: Duration
  ) {
    self.log = log
    self.accounts = accounts
    self.index = index
    self.views = views
    self.changes = changes
    self.deliveries = deliveries
    self.refundRequests = refundRequests
    self.support = support
    self.maintenance = maintenance
    self.revenue = revenue
    self.keys = keys
    self.erasure = erasure
    self.relays = relays
    self.aliases = aliases
    self.signOuts = signOuts
    self.replicas = replicas
    self.hosts = hosts
    self.logger = logger
    self.timeout = timeout
  }

  /// How services call the ports: within ``timeout``, failures as the ledger's errors.
  package var calls: StorageCalls { StorageCalls(timeout: timeout) }

  /// `body` within the timeout; its failure as the ledger's error.
  package func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws(LedgerError) -> Result
  {
    try await calls.run(body)
  }

  /// `body` within the timeout; its failure as it is (``TimeoutError`` after the timeout).
  package func bounded<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws -> Result
  {
    try await calls.bounded(body)
  }

  /// A storage failure as the ledger's error, with its cause and next step.
  package static func mapped(_ error: any Error) -> LedgerError {
    if let error = error as? LedgerError { return error }
    if error is TimeoutError {
      return LedgerError(.databaseUnavailable, "the database did not answer in time")
    }
    if let error = error as? EventStoreError {
      if error.code == .hookFailed, let inner = error.underlying as? LedgerError { return inner }
      if error.code == .databaseUnavailable || error.code == .hookFailed {
        return LedgerError(.databaseUnavailable, error.message)
      }
      // A NUL byte (or a character the database's encoding cannot hold) in a text the caller
      // gave: the caller's to fix, and the statement failed, so nothing changed.
      if error.sqlState == "22021" || error.sqlState == "22P05" {
        return LedgerError(
          .invalidRequest,
          "a text holds a NUL byte or a character the database cannot store: remove it; "
            + "nothing was changed")
      }
      // The server cannot take it now: a full disk (53100), memory or connections run out
      // (class 53), an I/O failure (class 58), a server starting or shutting down (57P03).
      // Nothing was stored; the same request later may succeed, so it is a 503 to retry.
      if let state = error.sqlState,
        state.hasPrefix("53") || state.hasPrefix("58") || state == "57P03"
      {
        return LedgerError(
          .databaseUnavailable,
          state == "53100"
            ? "the database's disk is full: nothing was stored; retry once space is freed"
            : "the database cannot take the work now (SQLSTATE \(state)): nothing was stored; "
              + "retry")
      }
      if error.sqlState == "42501" {
        return LedgerError(
          .databasePermissionDenied,
          "the database role may not do this: the schema is changed by its owner (storeledger "
            + "migrate with the owner role); the writer role reads and appends")
      }
      // A function, table or column the statement names is missing: the database's schema is
      // older than this release.
      if let state = error.sqlState, ["42883", "42P01", "42703"].contains(state) {
        return LedgerError(
          .databaseRejected,
          "\(error.message) (SQLSTATE \(state)): the database's schema is older than this "
            + "release; apply its migrations (storeledger migrate with the owner role)")
      }
      // The SQLSTATE names the refusal for whoever reads the log; the message's own text is
      // not passed on, since the database's can quote row values.
      return LedgerError(
        .databaseRejected,
        error.sqlState.map { "\(error.message) (SQLSTATE \($0))" } ?? error.message)
    }
    return LedgerError(.databaseUnavailable, "the database failed")
  }
}
