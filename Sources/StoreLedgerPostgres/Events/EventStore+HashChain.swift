import PostgresNIO
import StoreLedgerCore

extension EventStore {
  /// Recomputes every hash of one stream (or of the whole log when `streamId` is nil; of its
  /// streams in `shard` only) inside PostgreSQL and reports the first row, in feed order, that
  /// does not match. An erased row's content is gone, so its hash is checked by its links
  /// alone (its own `prev_hash`, and the next row's); its erasure's record covers the rest.
  public func checkHashChain(streamId: String? = nil, shard: WorkShard = .whole)
    async throws(EventStoreError) -> HashChainReport
  {
    do {
      return try await primary().query(
        """
        WITH checked AS (
          SELECT stream_id, stream_version, tx_id, seq,
            erased_by IS NOT NULL AS erased,
            event_type = 'ledger.grant.v1' AS operator_grant,
            event_type IN ('ledger.relay_target.v1', 'ledger.relay_attempted.v1') AS relay,
            erased_by IS NULL
              AND hash IS DISTINCT FROM storeledger.event_digest(prev_hash, stream_id,
                stream_version, event_id, idempotency_key, event_type, environment,
                apple_signed_at, recorded_at, payload, raw_signed, metadata, claims)
              AS content_changed,
            prev_hash IS DISTINCT FROM coalesce(lag(hash) OVER stream,
              '\\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)
              AS broken_link,
            stream_version <> row_number() OVER stream AS version_gap
          FROM storeledger.events
          WHERE (\(streamId)::text IS NULL OR stream_id = \(streamId))
            AND (\(shard.count) = 1
              OR ((hashtextextended(stream_id, 0) % \(shard.count)) + \(shard.count))
                % \(shard.count) = \(shard.index))
          WINDOW stream AS (PARTITION BY stream_id ORDER BY stream_version)
        )
        SELECT (SELECT count(*) FROM checked), (SELECT count(*) FROM checked WHERE erased),
               (SELECT count(*) FROM checked WHERE operator_grant),
               (SELECT count(*) FROM checked WHERE relay),
               m.stream_id, m.stream_version, m.tx_id::text, m.seq,
               CASE WHEN m.version_gap THEN 'version_gap'
                    WHEN m.content_changed THEN 'content_changed' ELSE 'broken_link' END
        FROM (SELECT 1) one
        LEFT JOIN LATERAL (
          SELECT * FROM checked WHERE content_changed OR broken_link OR version_gap
          ORDER BY tx_id, seq LIMIT 1
        ) m ON true
        """, logger: logger
      ) { rows in
        var report = HashChainReport(checkedEvents: 0, firstMismatch: nil)
        for try await (
          count, erased, grants, relays, stream, version, transaction, sequence, reason
        ) in rows.decode(
          (Int64, Int64, Int64, Int64, String?, Int64?, String?, Int64?, String).self)
        {
          report = try Self.report(
            count: count, erased: erased, stream: stream, version: version,
            transaction: transaction, sequence: sequence, reason: reason)
          report.grantEvents = Int(grants)
          report.relayEvents = Int(relays)
        }
        return report
      }
    } catch {
      throw failure(error, while: "checking the hash chain")
    }
  }

  private static func report(
    count: Int64, erased: Int64, stream: String?, version: Int64?, transaction: String?,
    sequence: Int64?,
    reason: String
  ) throws -> HashChainReport {
    guard let stream, let version, let transaction, let sequence else {
      return HashChainReport(
        checkedEvents: Int(count), erasedEvents: Int(erased), firstMismatch: nil)
    }
    let mismatch = HashChainReport.Mismatch(
      streamId: stream, streamVersion: version,
      position: FeedPosition(transactionId: try UInt64(transaction).orThrow(), sequence: sequence),
      reason: try HashChainReport.Mismatch.Reason(rawValue: reason).orThrow())
    return HashChainReport(
      checkedEvents: Int(count), erasedEvents: Int(erased), firstMismatch: mismatch)
  }
}
