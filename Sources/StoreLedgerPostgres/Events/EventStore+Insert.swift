import Foundation
import NIOCore
import PostgresNIO

extension EventStore {
  /// One statement inserts the whole batch: versions follow the stream's head, each row's
  /// `prev_hash` is the previous row's `hash`, and `storeledger.event_digest` computes every
  /// hash inside PostgreSQL over exactly what is stored.
  func insert(
    _ events: [NewEvent], into streamId: String, after head: StreamHead,
    on connection: PostgresConnection
  ) async throws -> [String: AppendResult.Event] {
    let versions = events.indices.map { head.version + 1 + Int64($0) }
    let previousHash = ByteBuffer(bytes: head.hash)
    let rows = try await connection.query(
      """
      WITH RECURSIVE input AS (
        SELECT * FROM unnest(
          \(versions)::bigint[], \(events.map(\.eventId))::uuid[],
          \(events.map(\.idempotencyKey))::text[], \(events.map(\.eventType))::text[],
          \(events.map { $0.environment ?? "" })::text[],
          \(events.map { $0.appleSignedAt.map(Self.milliseconds) ?? -1 })::bigint[],
          \(events.map { String(decoding: $0.payload, as: UTF8.self) })::text[],
          \(events.map { $0.rawSigned ?? "" })::text[],
          \(events.map { String(decoding: $0.metadata, as: UTF8.self) })::text[]
        ) WITH ORDINALITY AS t(stream_version, event_id, idempotency_key, event_type, environment,
                               apple_signed_ms, payload, raw_signed, metadata, ordinal)
      ), prepared AS (
        SELECT ordinal, stream_version, event_id, idempotency_key, event_type,
               NULLIF(environment, '') AS environment,
               CASE WHEN apple_signed_ms < 0 THEN NULL
                    ELSE to_timestamp(0) + apple_signed_ms * interval '1 millisecond' END
                 AS apple_signed_at,
               statement_timestamp() AS recorded_at,
               payload::jsonb AS payload, NULLIF(raw_signed, '') AS raw_signed,
               metadata::jsonb AS metadata
        FROM input
      ), chained AS (
        SELECT p.*, \(previousHash)::bytea AS prev_hash,
               storeledger.event_digest(\(previousHash)::bytea, \(streamId), p.stream_version,
                 p.event_id, p.idempotency_key, p.event_type, p.environment, p.apple_signed_at,
                 p.recorded_at, p.payload, p.raw_signed, p.metadata) AS hash
        FROM prepared p WHERE p.ordinal = 1
        UNION ALL
        SELECT p.*, c.hash,
               storeledger.event_digest(c.hash, \(streamId), p.stream_version, p.event_id,
                 p.idempotency_key, p.event_type, p.environment, p.apple_signed_at,
                 p.recorded_at, p.payload, p.raw_signed, p.metadata)
        FROM chained c JOIN prepared p ON p.ordinal = c.ordinal + 1
      )
      INSERT INTO storeledger.events (
        stream_id, stream_version, event_id, idempotency_key, event_type, environment,
        apple_signed_at, recorded_at, payload, raw_signed, metadata, prev_hash, hash)
      SELECT \(streamId), stream_version, event_id, idempotency_key, event_type, environment,
             apple_signed_at, recorded_at, payload, raw_signed, metadata, prev_hash, hash
      FROM chained ORDER BY ordinal
      RETURNING idempotency_key, event_id, stream_version, tx_id::text, seq, recorded_at
      """, logger: logger)
    var inserted: [String: AppendResult.Event] = [:]
    for try await (key, eventId, version, transaction, sequence, recordedAt) in rows.decode(
      (String, UUID, Int64, String, Int64, Date).self)
    {
      inserted[key] = AppendResult.Event(
        idempotencyKey: key, eventId: eventId, streamVersion: version,
        position: FeedPosition(
          transactionId: try UInt64(transaction).orThrow(), sequence: sequence),
        recordedAt: recordedAt)
    }
    return inserted
  }

  static func milliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
  }
}
