import Logging
import PostgresNIO
import StoreLedgerCore

/// A ledger's PostgreSQL database: the primary's pool, the event store on it (the ledger's
/// `EventLog`), and the streaming replicas reads may go to. It is the ledger's `AccountReads`
/// and `AccountIndex` too; every wait on it is bounded by `timeout`.
public struct PostgresLedgerDatabase: Sendable {
  public let client: PostgresClient
  public let store: EventStore
  /// Nil: the primary answers everything.
  public let replicas: ReadReplicas?
  /// How long any statement (or a replica's answer) may take.
  public let timeout: Duration
  let logger: Logger

  /// - Parameter wakeUp: signalled after every append that stored something.
  public init(
    client: PostgresClient, logger: Logger, timeout: Duration = .seconds(10),
    wakeUp: WakeUpSignal? = nil, replicas: ReadReplicas? = nil
  ) {
    self.client = client
    self.store = EventStore(client: client, logger: logger, wakeUp: wakeUp)
    self.replicas = replicas
    self.timeout = timeout
    self.logger = logger
  }

  /// `body` on a replica when one may answer it (``ReadReplicas``), else on the primary, within
  /// the timeout; `account` is the account the read is about, if any, and `action` names the
  /// read in errors.
  public func reading<Value: Sendable>(
    _ account: String?, _ consistency: ReadConsistency, _ action: String,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws(EventStoreError) -> ReadAnswer<Value> {
    guard let replicas else {
      return ReadAnswer(value: try await onPrimary(action, body))
    }
    do {
      return try await withTimeout(self.timeout) {
        try await replicas.read(account: account, consistency: consistency, body)
      }
    } catch is TimeoutError {
      // The replica path used the whole time (a replica replaying slowly, a wait configured
      // as long as the timeout): the primary answers, in its own time, rather than an error
      // reaching the caller.
      return ReadAnswer(value: try await onPrimary(action, body))
    } catch {
      throw EventStoreError.database(error, while: action)
    }
  }

  /// `body` on the primary within the timeout; `action` names the work in errors.
  public func onPrimary<Value: Sendable>(
    _ action: String,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws(EventStoreError) -> Value {
    let (client, timeout) = (self.client, self.timeout)
    do {
      return try await withTimeout(timeout) { try await body(client) }
    } catch is TimeoutError {
      throw EventStoreError(.databaseUnavailable, "the database did not answer in time")
    } catch {
      throw EventStoreError.database(error, while: action)
    }
  }

  /// A statement on the primary within the timeout, given the pool and the logger; `action`
  /// names it in errors.
  func primary<Value: Sendable>(
    _ action: String,
    _ statement: @escaping @Sendable (PostgresClient, Logger) async throws -> Value
  ) async throws(EventStoreError) -> Value {
    let logger = self.logger
    return try await onPrimary(action) { client in try await statement(client, logger) }
  }
}
