import Foundation

/// The log as the ledger writes it and reads it back: streams of events, each append indexed
/// under the accounts it concerns in the same atomic step.
///
/// Every implementation keeps the same promises (the conformance suite checks them): an event's
/// identity is its idempotency key (appending a stored key again returns the stored event,
/// `wasDuplicate`, and writes nothing); a key belongs to one stream; versions are gapless per
/// stream; an append, its index entries and a batch are all or nothing; a refused decision
/// appends nothing.
public protocol EventLog: Sendable {
  /// Appends `events` to `stream` and indexes the stream (and `index`'s other streams) under
  /// `index`'s accounts.
  func append(_ events: [NewEvent], to stream: String, indexing index: StreamIndex?)
    async throws(EventStoreError) -> AppendResult

  /// Single-event items, each for its own stream, in one atomic step.
  func appendBatch(_ items: [BatchAppend]) async throws(EventStoreError) -> [AppendResult]

  /// Decides under `stream`'s lock and appends what the decision returns, in one atomic step:
  /// `decide` is given `account`'s events (no append to the stream can slip in between) and
  /// returns the events to append, or throws to append nothing (its error is thrown as the
  /// underlying error of a `hook_failed` ``EventStoreError``).
  func append(
    to stream: String, indexing index: StreamIndex?, decidingOver account: String,
    _ decide: @escaping @Sendable ([LedgerEvent]) throws -> [NewEvent]
  ) async throws(EventStoreError) -> AppendResult

  /// Appends `events` to `stream` only if the stream is at `expected` (else
  /// `wrongExpectedVersion`, nothing appended): how a decision over one stream's own events
  /// (a refund request's) keeps out a concurrent one.
  func append(_ events: [NewEvent], to stream: String, expected: ExpectedVersion)
    async throws(EventStoreError) -> AppendResult

  /// Every event of `streams`, each stream oldest first, the streams in the order given.
  func readStreams(_ streams: [String]) async throws(EventStoreError) -> [RecordedEvent]

  /// The same events as ``readStreams(_:)``, each only as a fold reads it.
  func readStreamFoldRows(_ streams: [String]) async throws(EventStoreError) -> [StreamFoldRow]

  /// Up to `limit` events after `position` in feed order, each as its position, stream and
  /// recording time. Only events no earlier append can still precede are given: a reader
  /// that moves on from the last one never misses one.
  func readFeedEntries(after position: FeedPosition, limit: Int) async throws(EventStoreError)
    -> [FeedEntry]

  /// The position of the last event ``readFeedEntries(after:limit:)`` would give now; nil
  /// while it would give none.
  func feedHead() async throws(EventStoreError) -> FeedPosition?

  /// Up to `limit` ids of streams holding events whose id starts with `prefix`, after
  /// `streamId` (an empty string: from the first) in the log's order of stream ids.
  func streamIds(prefixed prefix: String, after streamId: String, limit: Int)
    async throws(EventStoreError) -> [String]

  /// Where the feed's consumer `name` has got to; nil before its first move.
  func checkpoint(_ name: String) async throws(EventStoreError) -> FeedPosition?

  /// Moves `name` from `expected` (nil: it has none yet) to `position`, or throws
  /// `checkpointConflict` when it is no longer at `expected`.
  func moveCheckpoint(_ name: String, from expected: FeedPosition?, to position: FeedPosition)
    async throws(EventStoreError)
}
