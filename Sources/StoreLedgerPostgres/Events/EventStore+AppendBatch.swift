import Foundation
import PostgresNIO
import StoreLedgerCore

extension EventStore {
  /// Appends every item (one event to its stream each, expected version "any") in one
  /// transaction — one commit and one WAL flush for all of them — or appends nothing.
  /// Each item behaves as ``append(_:to:expected:indexing:hook:)`` would (a stored key gives
  /// its original position with `wasDuplicate`); results come in item order. One item that
  /// fails (a key used in another stream) fails the batch.
  public func appendBatch(_ items: [BatchAppend]) async throws(EventStoreError)
    -> [AppendResult]
  {
    guard !items.isEmpty, items.count <= Self.maximumBatchSize else {
      throw EventStoreError(.invalidEvent, "a batch needs 1…\(Self.maximumBatchSize) items")
    }
    for item in items { try Self.validate([item.event], streamId: item.streamId) }
    let query = Self.batchQuery(items)
    let client = try await primary()
    let results: [AppendResult]
    do {
      results = try await client.query(query, logger: logger) { rows in
        try await Self.results(of: rows, for: items)
      }
    } catch {
      throw failure(error, while: "appending a batch")
    }
    try await hosts.confirmReplicated(on: client)
    if results.contains(where: { !$0.wasDuplicate }) { await announcer?.announce() }
    return results
  }

  private static func batchQuery(_ items: [BatchAppend]) -> PostgresQuery {
    let events = items.map(\.event)
    var indexItems: [Int32] = []
    var indexTokens: [String] = []
    var indexStreams: [String] = []
    for (offset, item) in items.enumerated() {
      guard let index = item.index else { continue }
      for token in index.keys {
        for stream in index.streams {
          indexItems.append(Int32(offset + 1))
          indexTokens.append(token)
          indexStreams.append(stream)
        }
      }
    }
    let streams = items.map(\.streamId)
    // The holders are read with the statement's snapshot: those indexed before this batch.
    // A batch of events all stored before vouches for rows an earlier transaction wrote:
    // `durable` gives this one WAL of its own, so its commit waits for synchronous
    // replication up to a point after them.
    return """
      WITH appended AS MATERIALIZED (
        SELECT * FROM storeledger.append_batch(
        \(streams)::text[], \(events.map(\.eventId))::uuid[],
        \(events.map(\.idempotencyKey))::text[], \(events.map(\.eventType))::text[],
        \(events.map { $0.environment ?? "" })::text[],
        \(events.map { $0.appleSignedAt.map(milliseconds) ?? -1 })::bigint[],
        \(events.map { String(decoding: $0.payload, as: UTF8.self) })::jsonb[],
        \(events.map { $0.rawSigned ?? "" })::text[],
        \(events.map { String(decoding: $0.metadata, as: UTF8.self) })::jsonb[],
        \(events.map { $0.claims.map { String(decoding: $0, as: UTF8.self) } ?? "" })::text[],
        \(indexItems)::int[], \(indexTokens)::text[], \(indexStreams)::text[])
      ), durable AS (
        -- Nothing new: give this transaction WAL, so its commit waits for the standby.
        SELECT pg_logical_emit_message(true, 'storeledger', 'stored before')
        WHERE NOT EXISTS (SELECT 1 FROM appended WHERE NOT appended.stored_before)
      )
      SELECT b.item, b.idempotency_key, b.event_id, b.stream_version, b.tx_id::text, b.seq,
             b.recorded_at, b.stored_before,
             ARRAY(SELECT s.app_account_token FROM storeledger.account_streams s
                   WHERE s.stream_id = (\(streams)::text[])[b.item])
      FROM appended AS b LEFT JOIN durable ON true
      """
  }

  private static func results(of rows: StatementRows, for items: [BatchAppend])
    async throws -> [AppendResult]
  {
    var results = [AppendResult?](repeating: nil, count: items.count)
    for try await (item, key, eventId, version, transaction, sequence, recordedAt, stored, holders)
      in rows.decode((Int32, String, UUID, Int64, String, Int64, Date, Bool, [String]).self)
    {
      let offset = Int(item) - 1
      let event = AppendResult.Event(
        idempotencyKey: key, eventId: eventId, streamVersion: version,
        position: FeedPosition(
          transactionId: try UInt64(transaction).orThrow(), sequence: sequence),
        recordedAt: recordedAt)
      results[offset] = AppendResult(
        streamId: items[offset].streamId, events: [event], wasDuplicate: stored, holders: holders)
    }
    return try results.map { try $0.orThrow() }
  }
}
