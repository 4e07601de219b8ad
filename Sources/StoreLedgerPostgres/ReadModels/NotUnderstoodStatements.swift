import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The notifications the log holds but this release does not understand.
package enum NotUnderstoodStatements {
  /// Unrouted evidence and notifications whose type is not in `knownTypes` or whose claims
  /// carry a body object not in `knownBodies`, newest first after `key`, with how many there
  /// are when `countTotal`; an erasure's tombstones are erasures, never "not understood". The
  /// rule is applied to the notifications' distinct shapes (schema/0036: a skip scan of
  /// `events_notification_shape`, one probe per shape), and only the notifications of shapes
  /// the release does not know are read, through the index (`OFFSET 0` keeps the planner from
  /// turning the lateral read into a hash join that computes every notification's shape);
  /// they are kept once, for the page and the count.
  package static func list(
    knownTypes: [String], knownBodies: [String], after key: NotUnderstoodKey?, limit: Int,
    countTotal: Bool, on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<NotUnderstoodNotification> {
    let unrouted = NotUnderstoodNotification.unroutedStreamPrefix + "%"
    return try await client.query(
      """
      WITH RECURSIVE shapes(shape) AS (
        (SELECT storeledger.notification_shape(e.stream_id, e.payload, e.claims)
          FROM storeledger.events e WHERE e.event_type = 'appstore.notification.v3'
          ORDER BY 1 LIMIT 1)
        UNION ALL
        SELECT (SELECT storeledger.notification_shape(e.stream_id, e.payload, e.claims)
            FROM storeledger.events e
            WHERE e.event_type = 'appstore.notification.v3'
              AND storeledger.notification_shape(e.stream_id, e.payload, e.claims) > s.shape
            ORDER BY 1 LIMIT 1)
        FROM shapes s WHERE s.shape IS NOT NULL
      ),
      unknown AS (
        SELECT s.shape FROM shapes s
        WHERE s.shape IS NOT NULL
          AND ((s.shape->>2)::boolean
            OR NOT (coalesce(s.shape->>0, '') = ANY(\(knownTypes)))
            OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(s.shape->1) b
                       WHERE NOT (b = ANY(\(knownBodies)))))
      ),
      matching AS MATERIALIZED (
        SELECT e.tx_id, e.seq, e.stream_id, e.stream_version, e.recorded_at, e.claims, e.payload
        FROM unknown u
        CROSS JOIN LATERAL (
          SELECT * FROM storeledger.events e
          WHERE e.event_type = 'appstore.notification.v3'
            AND storeledger.notification_shape(e.stream_id, e.payload, e.claims) = u.shape
            AND e.erased_by IS NULL
          OFFSET 0) e
      )
      SELECT e.stream_id, e.stream_version, e.recorded_at,
        coalesce(e.claims->'notification'->>'notificationUUID', ''),
        e.payload->'notification'->>'notificationType',
        e.payload->'notification'->>'subtype',
        (e.payload->'notification'->>'signedDate')::bigint,
        coalesce((SELECT array_agg(m.key ORDER BY m.key) FROM jsonb_each(e.claims->'notification') m
                  WHERE jsonb_typeof(m.value) = 'object'), '{}'::text[]),
        (SELECT r.stream_id FROM storeledger.events r
          WHERE e.stream_id LIKE \(unrouted)
            AND r.idempotency_key = 'asn2:' || (e.claims->'notification'->>'notificationUUID')),
        CASE WHEN \(countTotal) THEN (SELECT count(*) FROM matching) END
      FROM matching e
      WHERE \(key?.streamId)::text IS NULL
        OR (e.tx_id, e.seq) < (SELECT k.tx_id, k.seq FROM storeledger.events k
          WHERE k.stream_id = \(key?.streamId)::text AND k.stream_version = \(key?.streamVersion)::bigint)
      ORDER BY e.tx_id DESC, e.seq DESC
      LIMIT \(limit)
      """, logger: logger
    ) { rows in
      var found: [NotUnderstoodNotification] = []
      var total: Int?
      for try await (
        stream, version, recorded, uuid, type, subtype, signed, bodies, routedTo, count
      )
        in rows.decode(
          (String, Int64, Date, String, String?, String?, Int64?, [String], String?, Int?).self)
      {
        total = count
        found.append(
          NotUnderstoodNotification(
            notificationUUID: uuid, notificationType: type, subtype: subtype,
            signedDate: signed.map(Timestamp.init(milliseconds:)), recordedAt: recorded,
            bodyObjects: bodies, streamId: stream, streamVersion: version, routedTo: routedTo))
      }
      // No row to carry the count: the list after `key` is empty, and so, on a first page,
      // is the whole list.
      return ListRead(rows: found, total: countTotal ? (total ?? 0) : nil)
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
