import Foundation

/// What support reads across accounts: searches, the overview, the log's counts, the
/// notifications the ledger did not understand, and what the log says about Apple actions.
public protocol SupportReads: Sendable {
  /// The accounts a search matches: by token, purchase chain, transaction, download or order
  /// id (in `environments`), with what matched.
  func accounts(matching query: String, environments: [String], consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<[AccountSearchMatch]>

  /// The console's counts, with notifications counted since `since`.
  func overview(since: Date, consistency: ReadConsistency) async throws(EventStoreError)
    -> ReadAnswer<ConsoleOverview>

  /// A page of accounts `filter` admits, newest change first, after `key` (from the start
  /// when nil); with the number of accounts it admits when `countTotal`.
  func accountList(
    _ filter: AccountListFilter, after key: AccountListKey?, limit: Int, countTotal: Bool,
    consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ListRead<AccountListRow>>

  /// A page of subscriptions entering a status in a window, newest first, after `key`.
  func statusTransitions(
    _ filter: StatusTransitionFilter, after key: StatusTransitionKey?, limit: Int,
    countTotal: Bool, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ListRead<StatusTransitionRow>>

  /// The log's `limit` newest rows (erased rows left out), newest first.
  func newestEvents(limit: Int, consistency: ReadConsistency) async throws(EventStoreError)
    -> ReadAnswer<[LogEntrySummary]>

  /// How much the log holds.
  func logCounts() async throws(EventStoreError) -> LogCounts

  /// Up to `limit` notifications after `key`, newest stored first, whose type is not in
  /// `knownTypes` or that carry a body object not in `knownBodies`, or that were stored
  /// unrouted; with how many the log holds when `countTotal`. An erasure's tombstones are
  /// erasures, never among them.
  func notUnderstood(
    knownTypes: [String], knownBodies: [String], after key: NotUnderstoodKey?, limit: Int,
    countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<NotUnderstoodNotification>

  /// How many notifications of `type` `stream` holds, signed since `since` (Unix ms).
  func notificationCount(in stream: String, type: String, since: Int64)
    async throws(EventStoreError) -> Int

  /// The counts of a mass renewal extension's summary notification in `stream`, if stored.
  func extensionSummary(in stream: String, requestIdentifier: String)
    async throws(EventStoreError) -> (succeeded: Int64?, failed: Int64?)?

  /// Where the event stored under `key` is, if any.
  func event(withKey key: String) async throws(EventStoreError)
    -> (streamId: String, streamVersion: Int64, recordedAt: Date)?
}

/// An account a support search found, and what matched.
public struct AccountSearchMatch: Sendable, Hashable {
  /// The most matches a search reads: one that reaches it may not be every account that
  /// matches, and says "at least".
  public static let limit = 50

  public var token: String
  public var matched: String

  public init(token: String, matched: String) {
    self.token = token
    self.matched = matched
  }
}
