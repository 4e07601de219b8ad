import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Runs inside an append's transaction, after the insert and before the commit: what it writes
/// commits or rolls back together with the events. Used by inline projections.
public typealias AppendHook = @Sendable (PostgresConnection, AppendResult) async throws -> Void

/// The append-only event log on PostgreSQL (`schema/`), used as `storeledger_writer`.
///
/// Appends are idempotent by key, gapless and ordered per stream, checked for the expected
/// version, chained by hash, and atomic. Reads: a stream, and the global feed in commit-safe
/// order. Safe to share between tasks.
public struct EventStore: Sendable {
  /// The database's hosts; statements go to the one that accepts writes.
  let hosts: DatabaseHosts
  let logger: Logger
  let announcer: AppendAnnouncer?

  /// The pool of the host that accepts writes (the last one known while it is looked for).
  var client: PostgresClient { hosts.current }

  /// - Parameters:
  ///   - wakeUp: signalled after each append that wrote something, for feeds in this process.
  ///   - notifiesListeners: also send a NOTIFY after such appends, for feeds in other
  ///     processes (``listenForAppends(signalling:)``). Costs one small statement per burst.
  public init(
    client: PostgresClient, logger: Logger, wakeUp: WakeUpSignal? = nil,
    notifiesListeners: Bool = false
  ) {
    self.init(
      hosts: DatabaseHosts(client: client, logger: logger), logger: logger, wakeUp: wakeUp,
      notifiesListeners: notifiesListeners)
  }

  /// The store on whichever of `hosts` accepts writes.
  public init(
    hosts: DatabaseHosts, logger: Logger, wakeUp: WakeUpSignal? = nil,
    notifiesListeners: Bool = false
  ) {
    self.hosts = hosts
    self.logger = logger
    self.announcer =
      wakeUp == nil && !notifiesListeners
      ? nil
      : AppendAnnouncer(
        hosts: hosts, logger: logger, wakeUp: wakeUp, notifiesListeners: notifiesListeners)
  }

  /// The largest batch one append takes; larger batches are split by the caller.
  public static let maximumBatchSize = BatchAppend.maximumCount
}

extension EventStore {
  /// How long a statement waits for the hosts to name a primary after the last one was lost;
  /// callers bound the whole statement with their own timeout, which ends the wait sooner.
  static let locateLimit = Duration.seconds(60)

  /// The pool of the host that accepts writes; after it was lost, the new one, once the
  /// hosts name it.
  func primary() async throws(EventStoreError) -> PostgresClient {
    guard hosts.asks else { return hosts.current }
    return try await hosts.located(within: Self.locateLimit)
  }

  /// A statement's failure as the store's error; one that says the primary was lost makes
  /// the hosts be asked again before the next statement.
  func failure(_ error: any Error, while action: String) -> EventStoreError {
    if hosts.asks, DatabaseHosts.losesHost(error) { hosts.lostCurrent() }
    return EventStoreError.database(error, while: action)
  }
}
