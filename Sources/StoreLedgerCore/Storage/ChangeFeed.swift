import Foundation

/// The change feed: every account's derived changes in one order, each at a position.
public protocol ChangeFeed: Sendable {
  /// Up to `limit` changes after `position` in feed order (only `account`'s when given), and,
  /// when there are none and `position` is past 0, the feed's head as the same reader saw it.
  /// A replica may answer unless `consistency` is exact.
  func changes(
    after position: Int64, limit: Int, account: String?, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ChangePage>

  /// The account's newest changes first: a page of them and how many it has.
  func newestChanges(of account: String, offset: Int, limit: Int, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<ChangePage>

  /// Every change of each of `accounts`, in feed order, by account.
  func changes(ofAccounts accounts: [String]) async throws(EventStoreError)
    -> [String: [ChangeRecord]]

  /// The changes at `positions`, in feed order.
  func changes(at positions: [Int64]) async throws(EventStoreError) -> [ChangeRecord]

  /// The newest position (0 while the feed is empty).
  func head() async throws(EventStoreError) -> Int64

  /// The position of the first change recorded at or after `time` (one past the head when
  /// there is none).
  func firstPosition(recordedSince time: Date) async throws(EventStoreError) -> Int64
}

/// A page of the change feed: its changes, and a count that depends on the read (the feed's
/// head for a read after a position, the account's total for its newest changes).
public struct ChangePage: Sendable, Hashable {
  public var changes: [ChangeRecord]
  public var count: Int64?

  public init(changes: [ChangeRecord], count: Int64?) {
    self.changes = changes
    self.count = count
  }
}
