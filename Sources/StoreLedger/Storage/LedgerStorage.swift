import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

/// The ledger's storage as its parts use it: the primary's pool and the event store on it, the
/// replicas reads may go to, and the one bound on every wait. The ledger and each of its
/// services (projector, deliverer, Apple actions, maintenance, support) hold this, never each
/// other's insides.
package struct LedgerStorage: Sendable {
  package let client: PostgresClient
  package let store: EventStore
  /// Streaming replicas that answer account queries, the console and the change feed's
  /// reads; nil: the primary answers everything.
  package let replicas: ReadReplicas?
  package let logger: Logger
  /// How long any database work may take (``LedgerConfiguration/databaseTimeout``).
  package let timeout: Duration

  package init(
    client: PostgresClient, logger: Logger, timeout: Duration, wakeUp: WakeUpSignal? = nil,
    replicas: ReadReplicas? = nil
  ) {
    self.client = client
    self.store = EventStore(client: client, logger: logger, wakeUp: wakeUp)
    self.replicas = replicas
    self.logger = logger
    self.timeout = timeout
  }

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

  /// `body` on a replica when one may answer it (``ReadReplicas``), else on the primary,
  /// within the timeout; `account` is the account the read is about, if any.
  package func reading<Value: Sendable>(
    _ account: String?, _ consistency: ReadConsistency,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws -> ReadReplicas.Answer<Value> {
    let client = self.client
    guard let replicas else {
      return ReadReplicas.Answer(value: try await bounded { try await body(client) })
    }
    do {
      return try await bounded {
        try await replicas.read(account: account, consistency: consistency, body)
      }
    } catch is TimeoutError {
      // The replica path used the whole time (a replica replaying slowly, a wait configured
      // as long as the timeout): the primary answers, in its own time, rather than an error
      // reaching the caller.
      return ReadReplicas.Answer(value: try await bounded { try await body(client) })
    }
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
