/// What maintenance needs of the storage beyond the log: the hash chain's check, versions of
/// the account views table for a rebuild, every account's events in pages, and the streams a
/// replay or a re-examination starts from.
public protocol MaintenanceStore: Sendable {
  /// Checks every stream's hash chain (of `shard`).
  func checkHashChain(shard: WorkShard) async throws(EventStoreError) -> HashChainReport

  /// Up to `limit` rows after `position` in feed order, each as its position, stream, version
  /// and row hash: the leaves of a signed checkpoint. Like the feed, only rows no earlier append
  /// can still precede.
  func leaves(after position: FeedPosition, limit: Int) async throws(EventStoreError) -> [LogLeaf]

  /// Up to `limit` events after `position` in feed order (of `shard`), whole.
  func events(after position: FeedPosition, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [RecordedEvent]

  /// Begins a new version of the account views table; returns its number.
  func beginViewsVersion() async throws(EventStoreError) -> Int

  /// The live version's number, if any.
  func liveViewsVersion() async throws(EventStoreError) -> Int?

  /// How many accounts hold any stream.
  func accountCount() async throws(EventStoreError) -> Int

  /// Stores `views` into version `version`.
  func store(_ views: [ProjectedAccountView], intoVersion version: Int, projection: String)
    async throws(EventStoreError)

  /// Makes `version` live; returns the accounts whose view changed meanwhile (to project
  /// again). A version that does not exist is `viewsVersionRefused`.
  func switchLive(to version: Int) async throws(EventStoreError) -> [String]

  /// Drops version `version` (never the live one: `viewsVersionRefused`).
  func dropViewsVersion(_ version: Int) async throws(EventStoreError)

  /// Every version of the views table.
  func viewsVersions() async throws(EventStoreError) -> [AccountViewsVersion]

  /// The accounts whose view differs between the live table and version `version`.
  func viewDifferences(from version: Int) async throws(EventStoreError)
    -> [AccountViewDifference]

  /// Runs `body` with every account's events (of `shard`) in pages of about `pageSize`
  /// whole accounts, read in one snapshot.
  func withAccountEventPages<Result: Sendable>(
    shard: WorkShard, pageSize: Int,
    _ body: @escaping @Sendable (AccountEventPages) async throws -> Result
  ) async throws -> Result

  /// The signed payloads of the notifications stored unrouted (their app was unreadable).
  func unroutedPayloads() async throws(EventStoreError) -> [String]

  /// Every purchase chain's stream, sorted.
  func purchaseStreams() async throws(EventStoreError) -> [String]

  /// The streams whose first event is of `eventType`, sorted.
  func streams(startingWith eventType: String) async throws(EventStoreError) -> [String]

  /// The streams indexed under `account`, sorted.
  func streams(of account: String) async throws(EventStoreError) -> [String]
}
