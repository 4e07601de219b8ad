import Logging
import PostgresNIO
import StoreLedgerCore

/// A ledger's PostgreSQL database: the primary's pool, the event store on it, and the
/// streaming replicas reads may go to.
public struct PostgresLedgerDatabase: Sendable {
  public let client: PostgresClient
  public let store: EventStore
  /// Nil: the primary answers everything.
  public let replicas: ReadReplicas?

  /// - Parameter wakeUp: signalled after every append that stored something.
  public init(
    client: PostgresClient, logger: Logger, wakeUp: WakeUpSignal? = nil,
    replicas: ReadReplicas? = nil
  ) {
    self.client = client
    self.store = EventStore(client: client, logger: logger, wakeUp: wakeUp)
    self.replicas = replicas
  }

  /// `body` on a replica when one may answer it (``ReadReplicas``), else on the primary, within
  /// `timeout`; `account` is the account the read is about, if any, and `action` names the
  /// read in errors.
  public func reading<Value: Sendable>(
    _ account: String?, _ consistency: ReadConsistency, within timeout: Duration,
    _ action: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws(EventStoreError) -> ReadAnswer<Value> {
    guard let replicas else {
      return ReadAnswer(value: try await onPrimary(within: timeout, action, body))
    }
    do {
      return try await withTimeout(timeout) {
        try await replicas.read(account: account, consistency: consistency, body)
      }
    } catch is TimeoutError {
      // The replica path used the whole time (a replica replaying slowly, a wait configured
      // as long as the timeout): the primary answers, in its own time, rather than an error
      // reaching the caller.
      return ReadAnswer(value: try await onPrimary(within: timeout, action, body))
    } catch {
      throw EventStoreError.database(error, while: action)
    }
  }

  /// `body` on the primary within `timeout`; `action` names the work in errors.
  public func onPrimary<Value: Sendable>(
    within timeout: Duration, _ action: String,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws(EventStoreError) -> Value {
    let client = self.client
    do {
      return try await withTimeout(timeout) { try await body(client) }
    } catch is TimeoutError {
      throw EventStoreError(.databaseUnavailable, "the database did not answer in time")
    } catch {
      throw EventStoreError.database(error, while: action)
    }
  }
}
