import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// A ledger on PostgreSQL: `client` is the primary's pool (as the writer role).
  ///
  /// - Parameters:
  ///   - wakeUp: signalled after every append that stored something, so an
  ///     ``AccountProjector`` in this process projects it without waiting for its next poll.
  ///   - replicas: replicas of `client`'s database for reads (read-your-writes); their
  ///     clients and ``ReadReplicas/monitor()`` are run by the caller.
  public init(
    client: PostgresClient, configuration: LedgerConfiguration, logger: Logger,
    wakeUp: WakeUpSignal? = nil, replicas: ReadReplicas? = nil
  ) throws {
    try self.init(
      hosts: DatabaseHosts(client: client, logger: logger), configuration: configuration,
      logger: logger, wakeUp: wakeUp, replicas: replicas)
  }

  /// A ledger on the database at `hosts`: the one that accepts writes, found again after a
  /// failover (``DatabaseHosts``); the caller runs their pools.
  public init(
    hosts: DatabaseHosts, configuration: LedgerConfiguration, logger: Logger,
    wakeUp: WakeUpSignal? = nil, replicas: ReadReplicas? = nil
  ) throws {
    try self.init(
      storage: LedgerStorage(
        PostgresLedgerDatabase(
          hosts: hosts, logger: logger, timeout: configuration.databaseTimeout, wakeUp: wakeUp,
          replicas: replicas),
        logger: logger),
      configuration: configuration)
  }

  /// A ledger on a storage of your own that offers every port: `InMemoryLedgerStorage`
  /// (product `StoreLedgerMemory`) for tests, which keeps the promises of the PostgreSQL one
  /// (erasure included) and forgets everything with the process.
  public init(
    storage: some EventLog & LedgerPorts, configuration: LedgerConfiguration, logger: Logger
  ) throws {
    try self.init(
      storage: LedgerStorage(storage, logger: logger, timeout: configuration.databaseTimeout),
      configuration: configuration)
  }
}
