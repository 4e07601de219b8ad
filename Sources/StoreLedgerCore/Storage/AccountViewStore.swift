/// The accounts' stored views and how far each account's changes are derived: what the
/// projector reads and writes, and what its sweeps find to do again.
public protocol AccountViewStore: Sendable {
  /// What the projector folds for each of `tokens` that holds a view row: the appends that
  /// named it, its events (and its refund requests') with their places in the feed, its
  /// derivation marker and the read's fence.
  func inputs(of tokens: [String]) async throws(EventStoreError) -> [String: AccountInput]

  /// Stores `views`, computed by the rules `projection` names. A view never replaces one that
  /// includes more appends (a slower projector finishing late). Returns how many it stored.
  @discardableResult
  func store(_ views: [ProjectedAccountView], projection: String)
    async throws(EventStoreError) -> Int

  /// Appends each account's new changes to the feed and moves its derivation marker, only
  /// where the marker is still at the version read; returns the accounts whose marker moved.
  @discardableResult
  func appendChanges(_ accounts: [DerivedAccountChanges]) async throws(EventStoreError)
    -> Set<String>

  /// Up to `limit` accounts whose stored view stopped holding by `time`.
  func expired(at time: Timestamp, limit: Int) async throws(EventStoreError) -> [String]

  /// Up to `limit` accounts whose stored view other rules computed than `projection`.
  func foreign(to projection: String, limit: Int) async throws(EventStoreError) -> [String]

  /// Up to `limit` accounts whose next clock change is due by `time`.
  func changesDue(at time: Timestamp, limit: Int) async throws(EventStoreError) -> [String]

  /// Up to `limit` accounts with a view but no derivation marker yet.
  func underived(limit: Int) async throws(EventStoreError) -> [String]

  /// Up to `limit` accounts holding a view after `token` in token order (of `shard`).
  func accounts(after token: String, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [String]

  /// The stored views of `tokens` whole, by token (accounts without one are absent).
  func storedViews(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountViewSlice]

  /// The stored status histories of `tokens` (``StatusHistory``), oldest entry first, by
  /// token (accounts without one are absent).
  func statusHistories(of tokens: [String]) async throws(EventStoreError)
    -> [String: [StatusTransitionRow]]
}
