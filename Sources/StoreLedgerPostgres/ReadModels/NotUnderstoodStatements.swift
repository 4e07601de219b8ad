import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The notifications the log holds but this release does not understand.
package enum NotUnderstoodStatements {
  /// Unrouted evidence and notifications whose type is not in `knownTypes` or whose claims
  /// carry a body object not in `knownBodies`, newest first; an erasure's tombstones are
  /// erasures, never "not understood". A full scan of the
  /// notifications: a tool's question, not a hot path.
  package static func list(
    knownTypes: [String], knownBodies: [String], limit: Int, on client: PostgresClient,
    logger: Logger
  ) async throws -> [NotUnderstoodNotification] {
    let unrouted = NotUnderstoodNotification.unroutedStreamPrefix + "%"
    return try await client.query(
      """
      SELECT e.stream_id, e.recorded_at,
        coalesce(e.claims->'notification'->>'notificationUUID', ''),
        e.payload->'notification'->>'notificationType',
        e.payload->'notification'->>'subtype',
        (e.payload->'notification'->>'signedDate')::bigint,
        coalesce((SELECT array_agg(m.key ORDER BY m.key) FROM jsonb_each(e.claims->'notification') m
                  WHERE jsonb_typeof(m.value) = 'object'), '{}'::text[]),
        (SELECT r.stream_id FROM storeledger.events r
          WHERE e.stream_id LIKE \(unrouted)
            AND r.idempotency_key = 'asn2:' || (e.claims->'notification'->>'notificationUUID'))
      FROM storeledger.events e
      WHERE e.event_type = 'appstore.notification.v3' AND e.erased_by IS NULL
        AND (e.stream_id LIKE \(unrouted)
          OR NOT (coalesce(e.payload->'notification'->>'notificationType', '') = ANY(\(knownTypes)))
          OR EXISTS (SELECT 1 FROM jsonb_each(e.claims->'notification') m
                     WHERE jsonb_typeof(m.value) = 'object' AND NOT (m.key = ANY(\(knownBodies)))))
      ORDER BY e.tx_id DESC, e.seq DESC
      LIMIT \(limit)
      """, logger: logger
    ) { rows in
      var found: [NotUnderstoodNotification] = []
      for try await (stream, recorded, uuid, type, subtype, signed, bodies, routedTo)
        in rows.decode(
          (String, Date, String, String?, String?, Int64?, [String], String?).self)
      {
        found.append(
          NotUnderstoodNotification(
            notificationUUID: uuid, notificationType: type, subtype: subtype,
            signedDate: signed.map(Timestamp.init(milliseconds:)), recordedAt: recorded,
            bodyObjects: bodies, streamId: stream, routedTo: routedTo))
      }
      return found
    }
  }

  /// The original JWS of every unrouted notification not routed since, oldest first.
  package static func unroutedPayloads(on client: PostgresClient, logger: Logger) async throws
    -> [String]
  {
    let unrouted = NotUnderstoodNotification.unroutedStreamPrefix + "%"
    return try await client.query(
      """
      SELECT e.raw_signed FROM storeledger.events e
      WHERE e.stream_id LIKE \(unrouted) AND e.raw_signed IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM storeledger.events r
          WHERE r.idempotency_key = 'asn2:' || (e.claims->'notification'->>'notificationUUID'))
      ORDER BY e.tx_id, e.seq
      """, logger: logger
    ) { rows in
      var found: [String] = []
      for try await raw in rows.decode(String.self) { found.append(raw) }
      return found
    }
  }
}
