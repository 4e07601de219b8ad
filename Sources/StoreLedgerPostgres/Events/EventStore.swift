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
  let client: PostgresClient
  let logger: Logger
  let announcer: AppendAnnouncer?

  /// - Parameters:
  ///   - wakeUp: signalled after each append that wrote something, for feeds in this process.
  ///   - notifiesListeners: also send a NOTIFY after such appends, for feeds in other
  ///     processes (``listenForAppends(signalling:)``). Costs one small statement per burst.
  public init(
    client: PostgresClient, logger: Logger, wakeUp: WakeUpSignal? = nil,
    notifiesListeners: Bool = false
  ) {
    self.client = client
    self.logger = logger
    self.announcer =
      wakeUp == nil && !notifiesListeners
      ? nil
      : AppendAnnouncer(
        client: client, logger: logger, wakeUp: wakeUp, notifiesListeners: notifiesListeners)
  }

  /// The largest batch one append takes; larger batches are split by the caller.
  public static let maximumBatchSize = 1000
}
