import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of relays (`storeledger.relay_targets`, `storeledger.relay_deliveries`,
/// schema/0025), and the reading of a target's recorded attempts from the log.
package enum RelayStatements {
  /// The event types whose rows are Apple's notifications, in every form the log holds.
  static let notificationTypes = [
    EventTypes.notification, EventTypes.notificationWithoutTerms, EventTypes.notificationClaims,
  ]

  /// Adds the target at the oldest transaction still running; false when the name is taken.
  package static func add(_ target: RelayTarget, on client: PostgresClient, logger: Logger)
    async throws -> Bool
  {
    try await client.query(
      """
      INSERT INTO storeledger.relay_targets (name, url, url_key, environments,
        notification_types, enqueued_tx, enqueued_seq, created_at, created_by)
      VALUES (\(target.name), \(target.url), \(target.urlKey), \(target.environments)::text[],
        \(target.notificationTypes)::text[], pg_snapshot_xmin(pg_current_snapshot()), 0,
        \(target.createdAt), \(target.createdBy))
      ON CONFLICT (name) DO NOTHING
      RETURNING 1
      """, logger: logger
    ) { rows in
      for try await _ in rows { return true }
      return false
    }
  }

  package static func remove(_ name: String, on client: PostgresClient, logger: Logger)
    async throws -> Bool
  {
    try await client.execute(
      "DELETE FROM storeledger.relay_targets WHERE name = \(name) RETURNING 1", logger: logger)
      > 0
  }

  package static func targets(on client: PostgresClient, logger: Logger) async throws
    -> [RelayTarget]
  {
    try await client.query(
      """
      SELECT name, url, url_key, environments, notification_types, created_at, created_by
      FROM storeledger.relay_targets ORDER BY name
      """, logger: logger
    ) { rows in
      var targets: [RelayTarget] = []
      for try await (name, url, key, environments, types, created, by) in rows.decode(
        (String, String, String, [String], [String]?, Date, String).self)
      {
        targets.append(
          RelayTarget(
            name: name, url: url, urlKey: key, environments: environments,
            notificationTypes: types, createdAt: created, createdBy: by))
      }
      return targets
    }
  }

  /// Queues the target's notifications among the next `limit` events of the feed after its
  /// position (skipped while another server queues for it); nil when the target is gone. A
  /// notification whose environment could not be read (unrouted evidence) goes to every
  /// target of its type: a relay passes on what Apple sent rather than guess.
  /// Returns how many events were scanned, so the caller goes on while it is `limit`.
  package static func enqueue(
    _ target: String, limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> Int? {
    try await client.query(
      """
      WITH t AS (
        SELECT enqueued_tx, enqueued_seq, environments, notification_types
        FROM storeledger.relay_targets WHERE name = \(target) FOR UPDATE SKIP LOCKED
      ), scanned AS (
        SELECT e.tx_id, e.seq, e.idempotency_key, e.stream_id, e.stream_version, e.environment,
          e.event_type, e.raw_signed IS NOT NULL AS signed,
          coalesce(e.payload #>> '{notification,notificationType}',
            e.payload ->> 'notificationType') AS notification_type
        FROM storeledger.events e
        WHERE (e.tx_id, e.seq) > ((SELECT enqueued_tx FROM t), (SELECT enqueued_seq FROM t))
          AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY e.tx_id, e.seq LIMIT \(limit)
      ), queued AS (
        INSERT INTO storeledger.relay_deliveries (target, idempotency_key, stream_id,
          stream_version, tx_id, seq, notification_type, environment)
        SELECT \(target), s.idempotency_key, s.stream_id, s.stream_version, s.tx_id, s.seq,
          s.notification_type, s.environment
        FROM scanned s, t
        WHERE s.event_type = ANY(\(Self.notificationTypes)::text[]) AND s.signed
          AND (s.environment IS NULL OR s.environment = ANY(t.environments))
          AND (t.notification_types IS NULL OR s.notification_type = ANY(t.notification_types))
        ON CONFLICT (target, idempotency_key) DO NOTHING
        RETURNING 1
      ), moved AS (
        UPDATE storeledger.relay_targets r SET enqueued_tx = last.tx_id, enqueued_seq = last.seq
        FROM (SELECT tx_id, seq FROM scanned ORDER BY tx_id DESC, seq DESC LIMIT 1) last
        WHERE r.name = \(target)
        RETURNING 1
      )
      SELECT EXISTS (SELECT 1 FROM storeledger.relay_targets WHERE name = \(target)),
        (SELECT count(*) FROM scanned), (SELECT count(*) FROM queued), (SELECT count(*) FROM moved)
      """, logger: logger
    ) { rows in
      for try await (exists, scanned, _, _) in rows.decode((Bool, Int64, Int64, Int64).self) {
        return exists ? Int(scanned) : nil
      }
      return nil
    }
  }

  /// Leases up to `limit` due deliveries of the target for `lease`, in feed order, with each
  /// notification's signed payload; rows another server holds are skipped.
  package static func claim(
    _ target: String, limit: Int, lease: Duration, on client: PostgresClient, logger: Logger
  ) async throws -> [RelayDeliveryClaim] {
    try await client.query(
      """
      WITH due AS (
        SELECT idempotency_key FROM storeledger.relay_deliveries
        WHERE target = \(target) AND state = 'pending' AND next_attempt_at <= now()
          AND (leased_until IS NULL OR leased_until < now())
        ORDER BY tx_id, seq LIMIT \(limit) FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE storeledger.relay_deliveries d
        SET leased_until = now() + make_interval(secs => \(Double(lease.components.seconds))),
          attempts = d.attempts + 1, first_attempt_at = coalesce(d.first_attempt_at, now()),
          last_attempt_at = now()
        FROM due WHERE d.target = \(target) AND d.idempotency_key = due.idempotency_key
        RETURNING d.idempotency_key, d.stream_id, d.stream_version, d.notification_type,
          d.environment, d.attempts, d.first_attempt_at, d.tx_id, d.seq
      )
      SELECT c.idempotency_key, c.stream_id, c.stream_version, c.notification_type,
        c.environment, c.attempts, c.first_attempt_at, e.raw_signed, e.metadata ->> 'body'
      FROM claimed c
      LEFT JOIN storeledger.events e
        ON e.stream_id = c.stream_id AND e.stream_version = c.stream_version
      ORDER BY c.tx_id, c.seq
      """, logger: logger
    ) { rows in
      var claims: [RelayDeliveryClaim] = []
      for try await (key, stream, version, type, environment, attempt, first, signed, body)
        in rows.decode(
          (String, String, Int64, String?, String?, Int32, Date, String?, String?).self)
      {
        claims.append(
          RelayDeliveryClaim(
            notificationKey: key, streamId: stream, streamVersion: version,
            notificationType: type, environment: environment, attempt: Int(attempt),
            firstAttemptAt: first, signedPayload: signed, originalBody: body))
      }
      return claims
    }
  }

  /// Records the outcomes of claimed attempts in one statement.
  package static func record(
    _ outcomes: [RelayOutcome], target: String, on client: PostgresClient, logger: Logger
  ) async throws {
    guard !outcomes.isEmpty else { return }
    try await client.execute(
      """
      WITH recorded AS (
      UPDATE storeledger.relay_deliveries d
      SET state = o.state, last_status = NULLIF(o.status, -1), last_error = NULLIF(o.error, ''),
        leased_until = NULL,
        next_attempt_at = coalesce(
          to_timestamp(NULLIF(o.retry_ms, -1) / 1000.0), d.next_attempt_at),
        delivered_at = CASE WHEN o.state = 'delivered' THEN now() END
      FROM unnest(\(outcomes.map(\.notificationKey))::text[], \(outcomes.map(\.state.rawValue))::text[],
        \(outcomes.map { Int32($0.status ?? -1) })::int[],
        \(outcomes.map { $0.error ?? "" })::text[],
        \(outcomes.map { $0.retryAt.map { Int64($0.timeIntervalSince1970 * 1000) } ?? -1 })::bigint[]
      ) AS o(idempotency_key, state, status, error, retry_ms)
      WHERE d.target = \(target) AND d.idempotency_key = o.idempotency_key
      RETURNING d.state
      )
      UPDATE storeledger.relay_targets
      SET delivered_total = delivered_total
        + (SELECT count(*) FROM recorded WHERE state = 'delivered')
      WHERE name = \(target)
      """, logger: logger)
  }

  @discardableResult
  package static func prune(
    _ target: String, deliveredBefore age: Duration, on client: PostgresClient, logger: Logger
  ) async throws -> Int {
    try await client.execute(
      """
      DELETE FROM storeledger.relay_deliveries
      WHERE target = \(target) AND state = 'delivered'
        AND delivered_at < now() - make_interval(secs => \(Double(age.components.seconds)))
      RETURNING 1
      """, logger: logger)
  }

  package static func retryDead(_ target: String, on client: PostgresClient, logger: Logger)
    async throws -> Int
  {
    try await client.execute(
      """
      UPDATE storeledger.relay_deliveries SET state = 'pending', attempts = 0,
        next_attempt_at = now(), leased_until = NULL, first_attempt_at = NULL
      WHERE target = \(target) AND state = 'dead'
      RETURNING 1
      """, logger: logger)
  }

  package static func deliveries(
    target: String, state: String?, after: String?, limit: Int, countTotal: Bool,
    on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<RelayDelivery> {
    // Newest notification first: the page after a row starts below that row's place in the
    // log (a row retried keeps its place; one pruned since ends the list).
    let rows = try await client.query(
      """
      SELECT target, idempotency_key, notification_type, environment, state, attempts,
        last_status, last_error, next_attempt_at, delivered_at
      FROM storeledger.relay_deliveries
      WHERE target = \(target) AND (\(state)::text IS NULL OR state = \(state))
        AND (\(after)::text IS NULL OR (tx_id, seq) < (SELECT k.tx_id, k.seq
          FROM storeledger.relay_deliveries k
          WHERE k.target = \(target) AND k.idempotency_key = \(after)::text))
      ORDER BY tx_id DESC, seq DESC LIMIT \(limit)
      """, logger: logger
    ) { rows in
      var entries: [RelayDelivery] = []
      for try await (target, key, type, environment, state, attempts, status, error, next, done)
        in rows.decode(
          (String, String, String?, String?, String, Int32, Int32?, String?, Date, Date?).self)
      {
        entries.append(
          RelayDelivery(
            target: target, notificationKey: key, notificationType: type,
            environment: environment, state: try DeliveryState.stored(state),
            attempts: Int(attempts),
            lastStatus: status.map(Int.init), lastError: error, nextAttemptAt: next,
            deliveredAt: done))
      }
      return entries
    }
    guard countTotal else { return ListRead(rows: rows, total: nil) }
    let total = try await client.query(
      """
      SELECT count(*) FROM storeledger.relay_deliveries
      WHERE target = \(target) AND (\(state)::text IS NULL OR state = \(state))
      """, logger: logger
    ) { rows in
      var total = 0
      for try await count in rows.decode(Int.self) { total = count }
      return total
    }
    return ListRead(rows: rows, total: total)
  }

  package static func counts(on client: PostgresClient, logger: Logger) async throws
    -> [RelayTargetCounts]
  {
    try await client.query(
      """
      SELECT t.name, t.delivered_total,
        count(*) FILTER (WHERE d.state = 'pending' AND d.attempts > 0),
        count(*) FILTER (WHERE d.state = 'pending' AND d.attempts = 0),
        count(*) FILTER (WHERE d.state = 'dead'),
        coalesce(extract(epoch FROM now() - min(e.recorded_at)
          FILTER (WHERE d.state = 'pending'))::float8, 0)
      FROM storeledger.relay_targets t
      LEFT JOIN storeledger.relay_deliveries d ON d.target = t.name AND d.state <> 'delivered'
      LEFT JOIN storeledger.events e
        ON e.stream_id = d.stream_id AND e.stream_version = d.stream_version
      GROUP BY t.name, t.delivered_total ORDER BY t.name
      """, logger: logger
    ) { rows in
      var counts: [RelayTargetCounts] = []
      for try await (target, delivered, retrying, waiting, dead, oldest) in rows.decode(
        (String, Int64, Int64, Int64, Int64, Double).self)
      {
        counts.append(
          RelayTargetCounts(
            target: target, delivered: Int(delivered), retrying: Int(retrying),
            waiting: Int(waiting), dead: Int(dead), oldestPendingSeconds: oldest))
      }
      return counts
    }
  }

  /// The target's recorded attempts from the log, newest first.
  package static func attempts(
    target: String, notification: String?, before: Int64?, limit: Int, countTotal: Bool,
    on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<RecordedEvent> {
    let rows = try await client.query(
      """
      SELECT \(unescaped: RecordedEvent.columns) FROM storeledger.events
      WHERE stream_id = \(RelayTarget.streamId(of: target))
        AND event_type = \(EventTypes.relayAttempted)
        AND (\(before)::bigint IS NULL OR stream_version < \(before))
        AND (\(notification)::text IS NULL
          OR lower(payload #>> '{relayAttempt,notification}') = lower(\(notification)))
      ORDER BY stream_version DESC LIMIT \(limit)
      """, logger: logger, reading: EventStore.collect)
    guard countTotal else { return ListRead(rows: rows, total: nil) }
    let total = try await client.query(
      """
      SELECT count(*) FROM storeledger.events
      WHERE stream_id = \(RelayTarget.streamId(of: target))
        AND event_type = \(EventTypes.relayAttempted)
        AND (\(notification)::text IS NULL
          OR lower(payload #>> '{relayAttempt,notification}') = lower(\(notification)))
      """, logger: logger
    ) { rows in
      var total = 0
      for try await count in rows.decode(Int.self) { total = count }
      return total
    }
    return ListRead(rows: rows, total: total)
  }
}
