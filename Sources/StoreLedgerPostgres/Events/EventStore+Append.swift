import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

extension EventStore {
  /// Appends `events` to `streamId` in one transaction, or appends nothing.
  ///
  /// `storeledger.append_events` (schema/0004) does the work under the stream's advisory lock:
  /// events whose key is already stored are not written again (when all are, this returns the
  /// original positions, `wasDuplicate == true`, without checking the version); otherwise the
  /// stream must satisfy `expected` and the new events get the next versions and their hash
  /// chain in one insert. `indexing` entries go into the account index in the same statement
  /// (`storeledger.append_events_indexed`, schema/0006), and the write counts for every
  /// account holding the stream (schema/0019), returned as ``AppendResult/holders``. Without a
  /// hook that is one round trip; with one, `hook` runs after the insert in the same
  /// transaction.
  public func append(
    _ events: [NewEvent], to streamId: String, expected: ExpectedVersion = .any,
    indexing index: StreamIndex? = nil, hook: AppendHook? = nil
  ) async throws(EventStoreError) -> AppendResult {
    try Self.validate(events, streamId: streamId)
    let query = Self.appendQuery(events, to: streamId, expected: expected, index: index)
    let result: AppendResult
    do {
      result = try await appendOnce(query, events, to: streamId, hook: hook)
    } catch let error where error.sqlState == "23505" {
      // A concurrent append stored one of these keys in another stream first; once more, the
      // function sees it and reports it properly.
      result = try await appendOnce(query, events, to: streamId, hook: hook)
    }
    if !result.wasDuplicate { await announcer?.announce() }
    return result
  }

  private func appendOnce(
    _ query: PostgresQuery, _ events: [NewEvent], to streamId: String, hook: AppendHook?
  ) async throws(EventStoreError) -> AppendResult {
    let client = try await primary()
    let result: AppendResult
    do {
      if let hook {
        result = try await client.inTransaction(logger: logger) { connection in
          let result = try await connection.query(query, logger: logger) { rows in
            try await Self.result(of: rows, for: events, in: streamId)
          }
          try await Self.run(hook, on: connection, with: result)
          return result
        }
      } else {
        result = try await client.query(query, logger: logger) { rows in
          try await Self.result(of: rows, for: events, in: streamId)
        }
      }
    } catch {
      throw failure(error, while: "appending to a stream")
    }
    try await hosts.confirmReplicated(on: client)
    return result
  }

  static func appendQuery(
    _ events: [NewEvent], to streamId: String, expected: ExpectedVersion, index: StreamIndex?
  ) -> PostgresQuery {
    let (kind, version) = expected.encoded
    let eventIds = events.map(\.eventId)
    let keys = events.map(\.idempotencyKey)
    let types = events.map(\.eventType)
    let environments = events.map { $0.environment ?? "" }
    let signedAt = events.map { $0.appleSignedAt.map(milliseconds) ?? -1 }
    let payloads = events.map { String(decoding: $0.payload, as: UTF8.self) }
    let raw = events.map { $0.rawSigned ?? "" }
    let metadata = events.map { String(decoding: $0.metadata, as: UTF8.self) }
    let claims = events.map { $0.claims.map { String(decoding: $0, as: UTF8.self) } ?? "" }
    let index = index.flatMap { $0.isEmpty ? nil : $0 } ?? StreamIndex(keys: [], streams: [])
    // The holders are read with the statement's snapshot: those indexed before this append.
    // When every event was stored before, the answer vouches for rows an earlier transaction
    // wrote; `durable` gives this one WAL of its own, so its commit waits for synchronous
    // replication up to a point after them.
    return """
      WITH appended AS MATERIALIZED (
        SELECT * FROM storeledger.append_events_indexed(
          \(streamId), \(kind), \(version), \(eventIds)::uuid[], \(keys)::text[],
          \(types)::text[], \(environments)::text[], \(signedAt)::bigint[],
          \(payloads)::jsonb[], \(raw)::text[], \(metadata)::jsonb[], \(claims)::text[],
          \(index.keys)::text[], \(index.streams)::text[])
      ), durable AS (
        -- Nothing new: give this transaction WAL, so its commit waits for the standby.
        SELECT pg_logical_emit_message(true, 'storeledger', 'stored before')
        WHERE NOT EXISTS (SELECT 1 FROM appended WHERE NOT appended.stored_before)
      )
      SELECT idempotency_key, event_id, stream_version, tx_id::text, seq, recorded_at,
             stored_before,
             ARRAY(SELECT s.app_account_token FROM storeledger.account_streams s
                   WHERE s.stream_id = \(streamId))
      FROM appended LEFT JOIN durable ON true
      """
  }

  /// One entry per given event, in the given order. Row sequences are always read to the
  /// end: one left unfinished blocks its connection.
  static func result(
    of rows: StatementRows, for events: [NewEvent], in streamId: String
  ) async throws -> AppendResult {
    var positions: [String: AppendResult.Event] = [:]
    var storedBefore = 0
    var holders: [String] = []
    for try await (key, eventId, version, transaction, sequence, recordedAt, stored, indexed)
      in rows.decode((String, UUID, Int64, String, Int64, Date, Bool, [String]).self)
    {
      if stored { storedBefore += 1 }
      holders = indexed
      positions[key] = AppendResult.Event(
        idempotencyKey: key, eventId: eventId, streamVersion: version,
        position: FeedPosition(
          transactionId: try UInt64(transaction).orThrow(), sequence: sequence),
        recordedAt: recordedAt)
    }
    return AppendResult(
      streamId: streamId, events: try events.map { try positions[$0.idempotencyKey].orThrow() },
      wasDuplicate: storedBefore == events.count, holders: holders)
  }

  private static func run(
    _ hook: AppendHook, on connection: PostgresConnection, with result: AppendResult
  ) async throws {
    do {
      try await hook(connection, result)
    } catch {
      throw EventStoreError(
        .hookFailed, "the in-transaction hook failed; nothing was appended",
        underlying: error)
    }
  }

  static func validate(_ events: [NewEvent], streamId: String) throws(EventStoreError) {
    guard !streamId.isEmpty, !events.isEmpty, events.count <= maximumBatchSize else {
      throw EventStoreError(
        .invalidEvent, "an append needs a stream id and 1…\(maximumBatchSize) events")
    }
    let keys = events.map(\.idempotencyKey)
    guard Set(keys).count == keys.count, !keys.contains("") else {
      throw EventStoreError(.invalidEvent, "idempotency keys must be non-empty and distinct")
    }
  }

  static func milliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
  }
}

extension ExpectedVersion {
  /// As `storeledger.append_events` takes it.
  fileprivate var encoded: (kind: String, version: Int64) {
    switch self {
    case .any: ("any", 0)
    case .noStream: ("no_stream", 0)
    case .exact(let version): ("exact", version)
    }
  }
}
