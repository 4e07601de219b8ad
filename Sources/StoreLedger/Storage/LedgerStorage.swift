import Logging
import StoreLedgerCore
import StoreLedgerPostgres

/// The ledger's storage as its parts use it: the log, the account reads and the account index
/// (ports any storage implements), and, for the jobs that run their own statements
/// (maintenance, the console, the change feed and its deliveries, refund requests, Apple
/// actions), the PostgreSQL database. The ledger and each of its services hold this, never
/// each other's insides.
package struct LedgerStorage: Sendable {
  /// Appends (with their index entries) and streams read back.
  package let log: any EventLog
  /// The account queries' reads; a replica may answer them.
  package let accounts: any AccountReads
  /// Who holds which streams, refund requests, seats and downloads.
  package let index: any AccountIndex
  /// Nil for a ledger whose storage is not PostgreSQL (``Ledger/init(storage:configuration:logger:)``).
  private let postgres: PostgresLedgerDatabase?
  package let logger: Logger
  /// How long any database work may take (``LedgerConfiguration/databaseTimeout``).
  package let timeout: Duration

  /// Storage on PostgreSQL: the primary's pool, and replicas that may answer reads.
  package init(_ database: PostgresLedgerDatabase, logger: Logger) {
    self.log = database.store
    self.accounts = database
    self.index = database
    self.postgres = database
    self.logger = logger
    self.timeout = database.timeout
  }

  /// Storage behind the given ports only.
  package init(
    log: any EventLog, accounts: any AccountReads, index: any AccountIndex, logger: Logger,
    timeout: Duration
  ) {
    self.log = log
    self.accounts = accounts
    self.index = index
    self.postgres = nil
    self.logger = logger
    self.timeout = timeout
  }

  /// The PostgreSQL database, for the jobs that run their own statements.
  package func database() throws(LedgerError) -> PostgresLedgerDatabase {
    guard let postgres else {
      throw LedgerError(
        .databaseUnavailable,
        "this needs the ledger's PostgreSQL database; a ledger on other storage answers "
          + "ingests, links, debits and account queries only")
    }
    return postgres
  }

  /// Streaming replicas answering reads, if any: told of every write (read-your-writes).
  package var replicas: ReadReplicas? { postgres?.replicas }

  /// `body` within the timeout; its failure as the ledger's error.
  package func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws(LedgerError) -> Result
  {
    do {
      return try await bounded(body)
    } catch {
      throw Self.mapped(error)
    }
  }

  /// `body` within the timeout; its failure as it is (``TimeoutError`` after the timeout).
  package func bounded<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws -> Result
  {
    try await withTimeout(timeout, body)
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
      if error.sqlState == "42501" {
        return LedgerError(
          .databasePermissionDenied,
          "the database role may not do this: the schema is changed by its owner (storeledger "
            + "migrate with the owner role); the writer role reads and appends")
      }
      return LedgerError(.databaseRejected, error.message)
    }
    return LedgerError(.databaseUnavailable, "the database failed")
  }
}
