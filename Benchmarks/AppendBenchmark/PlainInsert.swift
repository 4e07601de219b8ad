import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerCore

/// The ceiling: the same rows inserted by one plain multi-row INSERT into a copy of the events
/// table (same columns, constraints and indexes; no triggers), with no lock, no dedupe, no
/// version check and no hash chain. Versions come from the caller, hashes are constants.
struct PlainInsert: Sendable {
  let client: PostgresClient
  let logger: Logger

  static let setupSQL = [
    "CREATE TABLE public.plain_events (LIKE storeledger.events INCLUDING ALL)",
    "GRANT SELECT, INSERT ON public.plain_events TO storeledger_writer",
  ]

  func insert(_ events: [NewEvent], into streamId: String, firstVersion: Int64) async throws {
    let versions = events.indices.map { firstVersion + Int64($0) }
    let zero = ByteBuffer(bytes: [UInt8](repeating: 0, count: 32))
    try await client.execute(
      """
      INSERT INTO public.plain_events (
        stream_id, stream_version, event_id, idempotency_key, event_type, environment,
        apple_signed_at, recorded_at, payload, raw_signed, metadata, prev_hash, hash)
      SELECT \(streamId), v, e, k, t, env, to_timestamp(0) + ms * interval '1 millisecond',
             statement_timestamp(), p::jsonb, r, m::jsonb, \(zero)::bytea, \(zero)::bytea
      FROM unnest(
        \(versions)::bigint[], \(events.map(\.eventId))::uuid[],
        \(events.map(\.idempotencyKey))::text[], \(events.map(\.eventType))::text[],
        \(events.map { $0.environment ?? "" })::text[],
        \(events.map { Self.milliseconds($0.appleSignedAt) })::bigint[],
        \(events.map { String(decoding: $0.payload, as: UTF8.self) })::text[],
        \(events.map { $0.rawSigned ?? "" })::text[],
        \(events.map { String(decoding: $0.metadata, as: UTF8.self) })::text[]
      ) AS input(v, e, k, t, env, ms, p, r, m)
      """, logger: logger)
  }

  private static func milliseconds(_ date: Date?) -> Int64 {
    Int64(((date ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1000).rounded(.down))
  }
}
