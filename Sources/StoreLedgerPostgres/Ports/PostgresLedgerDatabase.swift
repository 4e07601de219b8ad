import Logging
import PostgresNIO
import StoreLedgerCore

/// A ledger's PostgreSQL database: its hosts (the one that accepts writes is the primary), the
/// event store on it (the ledger's `EventLog`), and the streaming replicas reads may go to.
/// Each other port has its own adapter on it (`PostgresAccountReads`, `PostgresAccountIndex`,
/// …, in `Ports/`), which runs its statements through ``reading(_:_:_:_:)`` or
/// ``onPrimary(_:_:)``; every wait is bounded by `timeout`, including the wait for a new
/// primary after a failover.
public struct PostgresLedgerDatabase: Sendable {
  public let hosts: DatabaseHosts
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
    self.init(
      hosts: DatabaseHosts(client: client, logger: logger), logger: logger, timeout: timeout,
      wakeUp: wakeUp, replicas: replicas)
  }

  /// The database on `hosts` (their pools run by the caller).
  public init(
    hosts: DatabaseHosts, logger: Logger, timeout: Duration = .seconds(10),
    wakeUp: WakeUpSignal? = nil, replicas: ReadReplicas? = nil
  ) {
    self.hosts = hosts
    self.store = EventStore(hosts: hosts, logger: logger, wakeUp: wakeUp)
    self.replicas = replicas
    self.timeout = timeout
    self.logger = logger
  }

  /// The primary's pool (the last one known while a new primary is looked for).
  public var client: PostgresClient { hosts.current }

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
        try await replicas.read(account: account, consistency: consistency, body) {
          try await self.onPrimary(action, body)
        }
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
  ///
  /// With several hosts, a failure that says the primary was lost makes the hosts be asked
  /// again before the next statement. A statement the host refused as read-only (a demoted
  /// primary) changed nothing and runs again on the new primary within the same timeout;
  /// any other failure is the caller's (a webhook answers 503 and Apple sends again, a worker
  /// tries again on its next turn): a commit whose answer was lost may have happened.
  public func onPrimary<Value: Sendable>(
    _ action: String,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws(EventStoreError) -> Value {
    let (hosts, timeout) = (self.hosts, self.timeout)
    let deadline = ContinuousClock.now + timeout
    while true {
      let client = try await hosts.located(before: deadline)
      let remaining = deadline - .now
      do {
        guard remaining > .zero else { throw TimeoutError(limit: timeout) }
        return try await withTimeout(remaining) { try await body(client) }
      } catch is TimeoutError {
        hosts.lost(client)
        throw EventStoreError(.databaseUnavailable, "the database did not answer in time")
      } catch {
        guard hosts.asks, DatabaseHosts.losesHost(error) else {
          throw EventStoreError.database(error, while: action)
        }
        hosts.lost(client)
        guard DatabaseHosts.refusedAsReadOnly(error), deadline - .now > .milliseconds(200)
        else { throw EventStoreError.database(error, while: action) }
      }
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
