import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of webhook delivery (`storeledger.change_endpoints`,
/// `storeledger.change_deliveries`, schema/0016).
package enum ChangeDeliveryStatements {
  /// Registers `endpoint` at the feed's head (a new endpoint receives changes from now on; a
  /// resend reaches back further). Nothing happens for a known endpoint.
  package static func register(_ endpoint: String, on client: PostgresClient, logger: Logger)
    async throws
  {
    try await client.execute(
      """
      INSERT INTO storeledger.change_endpoints (endpoint, enqueued_through)
      SELECT \(endpoint), position FROM storeledger.change_feed_head
      ON CONFLICT (endpoint) DO NOTHING
      """, logger: logger)
  }

  /// Queues deliveries of the changes after the endpoint's `enqueued_through` (up to
  /// `limit`); skipped while another server is queuing for it. Returns how many.
  @discardableResult
  package static func enqueue(
    _ endpoint: String, limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> Int {
    try await client.query(
      """
      WITH e AS (
        SELECT enqueued_through FROM storeledger.change_endpoints
        WHERE endpoint = \(endpoint) FOR UPDATE SKIP LOCKED
      ), c AS (
        SELECT position, app_account_token FROM storeledger.changes
        WHERE position > (SELECT enqueued_through FROM e) ORDER BY position LIMIT \(limit)
      ), queued AS (
        INSERT INTO storeledger.change_deliveries (endpoint, position, app_account_token)
        SELECT \(endpoint), position, app_account_token FROM c
        ON CONFLICT (endpoint, position) DO NOTHING
      )
      UPDATE storeledger.change_endpoints SET enqueued_through = (SELECT max(position) FROM c)
      WHERE endpoint = \(endpoint) AND EXISTS (SELECT 1 FROM c)
      RETURNING enqueued_through - (SELECT min(position) FROM c) + 1
      """, logger: logger
    ) { rows in
      var count = 0
      for try await value in rows.decode(Int64.self) { count = Int(value) }
      return count
    }
  }

  /// Removes `endpoint`'s delivered rows older than `age` from the log (the changes stay in
  /// the feed; a resend reaches them again). Returns how many.
  @discardableResult
  package static func prune(
    _ endpoint: String, deliveredBefore age: Duration, on client: PostgresClient, logger: Logger
  ) async throws -> Int {
    try await client.execute(
      """
      DELETE FROM storeledger.change_deliveries
      WHERE endpoint = \(endpoint) AND state = 'delivered'
        AND delivered_at < now() - make_interval(secs => \(Double(age.components.seconds)))
      """, logger: logger)
  }

  /// Leases up to `limit` due deliveries of `endpoint` for `lease`, oldest first and at most
  /// one per account: a change waits while an older one of its account is still pending, so
  /// each account's changes arrive in order. Rows another server holds are skipped.
  package static func claim(
    _ endpoint: String, limit: Int, lease: Duration, on client: PostgresClient, logger: Logger
  ) async throws -> [ChangeDeliveryClaim] {
    let seconds = Double(lease.components.seconds)
    return try await client.query(
      """
      WITH due AS (
        SELECT d.position FROM storeledger.change_deliveries d
        WHERE d.endpoint = \(endpoint) AND d.state = 'pending' AND d.next_attempt_at <= now()
          AND (d.leased_until IS NULL OR d.leased_until < now())
          AND NOT EXISTS (
            SELECT 1 FROM storeledger.change_deliveries p
            WHERE p.endpoint = d.endpoint AND p.app_account_token = d.app_account_token
              AND p.state = 'pending' AND p.position < d.position)
        ORDER BY d.position LIMIT \(limit) FOR UPDATE SKIP LOCKED
      )
      UPDATE storeledger.change_deliveries d
      SET leased_until = now() + make_interval(secs => \(seconds)), attempts = d.attempts + 1,
        first_attempt_at = coalesce(d.first_attempt_at, now()), last_attempt_at = now()
      FROM due WHERE d.endpoint = \(endpoint) AND d.position = due.position
      RETURNING d.position, d.attempts, d.first_attempt_at
      """, logger: logger
    ) { rows in
      var claims: [ChangeDeliveryClaim] = []
      for try await (position, attempt, first) in rows.decode((Int64, Int32, Date).self) {
        claims.append(
          ChangeDeliveryClaim(position: position, attempt: Int(attempt), firstAttemptAt: first))
      }
      return claims.sorted { $0.position < $1.position }
    }
  }

  /// Records the outcomes of claimed attempts in one statement.
  package static func record(
    _ outcomes: [ChangeDeliveryOutcome], endpoint: String, on client: PostgresClient, logger: Logger
  ) async throws {
    guard !outcomes.isEmpty else { return }
    try await client.execute(
      """
      WITH recorded AS (
      UPDATE storeledger.change_deliveries d
      SET state = o.state, last_status = NULLIF(o.status, -1), last_error = NULLIF(o.error, ''),
        leased_until = NULL,
        next_attempt_at = coalesce(
          to_timestamp(NULLIF(o.retry_ms, -1) / 1000.0), d.next_attempt_at),
        delivered_at = CASE WHEN o.state = 'delivered' THEN now() END
      FROM unnest(\(outcomes.map(\.position))::bigint[], \(outcomes.map(\.state.rawValue))::text[],
        \(outcomes.map { Int32($0.status ?? -1) })::int[],
        \(outcomes.map { $0.error ?? "" })::text[],
        \(outcomes.map { $0.retryAt.map { Int64($0.timeIntervalSince1970 * 1000) } ?? -1 })::bigint[]
      ) AS o(position, state, status, error, retry_ms)
      WHERE d.endpoint = \(endpoint) AND d.position = o.position
      RETURNING d.state
      )
      UPDATE storeledger.change_endpoints
      SET delivered_total = delivered_total
        + (SELECT count(*) FROM recorded WHERE state = 'delivered')
      WHERE endpoint = \(endpoint)
      """, logger: logger)
  }

  /// Queues `endpoint`'s deliveries from `position` on again (delivered and dead ones
  /// included, and changes from before the endpoint was registered); returns how many.
  @discardableResult
  package static func resend(
    _ endpoint: String, from position: Int64, on client: PostgresClient, logger: Logger
  ) async throws -> Int {
    try await client.execute(
      """
      WITH e AS (
        SELECT enqueued_through FROM storeledger.change_endpoints WHERE endpoint = \(endpoint)
      )
      INSERT INTO storeledger.change_deliveries (endpoint, position, app_account_token)
      SELECT \(endpoint), c.position, c.app_account_token FROM storeledger.changes c, e
      WHERE c.position >= \(position) AND c.position <= e.enqueued_through
      ON CONFLICT (endpoint, position) DO UPDATE SET state = 'pending', attempts = 0,
        next_attempt_at = now(), leased_until = NULL, first_attempt_at = NULL,
        last_status = NULL, last_error = NULL, delivered_at = NULL
      RETURNING position
      """, logger: logger)
  }

  /// The delivery log, newest first; of one endpoint and state when given.
  package static func log(
    _ filter: ChangeDeliveryFilter, after key: ChangeDeliveryKey?, limit: Int, countTotal: Bool,
    on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<ChangeDelivery> {
    let (endpoint, state, failing) = (filter.endpoint, filter.state?.rawValue, filter.failing)
    // The newest change first, then by endpoint: the page after `key` starts below its
    // position, or at it with a later endpoint. `failing` is ChangeDeliveryFilter.holds's rule.
    let rows = try await client.query(
      """
      SELECT endpoint, position, state, attempts, last_status, last_error, next_attempt_at,
        delivered_at
      FROM storeledger.change_deliveries
      WHERE (\(endpoint)::text IS NULL OR endpoint = \(endpoint))
        AND (\(state)::text IS NULL OR state = \(state))
        AND (NOT \(failing) OR state = 'dead' OR (state = 'pending' AND attempts > 0))
        AND (\(key?.position)::bigint IS NULL OR position < \(key?.position)::bigint
          OR (position = \(key?.position)::bigint AND endpoint > \(key?.endpoint)::text))
      ORDER BY position DESC, endpoint LIMIT \(limit)
      """, logger: logger
    ) { rows in try await decodeLog(rows) }
    guard countTotal else { return ListRead(rows: rows, total: nil) }
    let total = try await client.query(
      """
      SELECT count(*) FROM storeledger.change_deliveries
      WHERE (\(endpoint)::text IS NULL OR endpoint = \(endpoint))
        AND (\(state)::text IS NULL OR state = \(state))
        AND (NOT \(failing) OR state = 'dead' OR (state = 'pending' AND attempts > 0))
      """, logger: logger
    ) { rows in
      var total = 0
      for try await count in rows.decode(Int.self) { total = count }
      return total
    }
    return ListRead(rows: rows, total: total)
  }

  /// Every endpoint's delivery of the changes at `positions` (an account's, for the console).
  package static func log(
    positions: [Int64], on client: PostgresClient, logger: Logger
  ) async throws -> [ChangeDelivery] {
    try await client.query(
      """
      SELECT d.endpoint, d.position, d.state, d.attempts, d.last_status, d.last_error,
        d.next_attempt_at, d.delivered_at
      FROM storeledger.change_endpoints e
      JOIN storeledger.change_deliveries d
        ON d.endpoint = e.endpoint AND d.position = ANY(\(positions)::bigint[])
      ORDER BY d.position, d.endpoint
      """, logger: logger
    ) { rows in try await decodeLog(rows) }
  }

  private static func decodeLog(_ rows: StatementRows) async throws -> [ChangeDelivery] {
    var entries: [ChangeDelivery] = []
    for try await (endpoint, position, state, attempts, status, error, next, delivered)
      in rows.decode((String, Int64, String, Int32, Int32?, String?, Date, Date?).self)
    {
      entries.append(
        ChangeDelivery(
          endpoint: endpoint, position: position, state: try DeliveryState.stored(state),
          attempts: Int(attempts),
          lastStatus: status.map(Int.init), lastError: error, nextAttemptAt: next,
          deliveredAt: delivered))
    }
    return entries
  }

  /// ``ChangeDeliveryCounts`` of every registered endpoint.
  package static func counts(on client: PostgresClient, logger: Logger) async throws
    -> [ChangeDeliveryCounts]
  {
    try await client.query(
      """
      SELECT e.endpoint, e.delivered_total,
        (SELECT count(*) FROM storeledger.change_deliveries d
         WHERE d.endpoint = e.endpoint AND d.state = 'pending' AND d.attempts > 0),
        (SELECT count(*) FROM storeledger.change_deliveries d
         WHERE d.endpoint = e.endpoint AND d.state = 'pending' AND d.attempts = 0),
        (SELECT count(*) FROM storeledger.change_deliveries d
         WHERE d.endpoint = e.endpoint AND d.state = 'dead'),
        coalesce((
          SELECT extract(epoch FROM now() - c.recorded_at)::float8
          FROM storeledger.change_deliveries d
          JOIN storeledger.changes c ON c.position = d.position
          WHERE d.endpoint = e.endpoint AND d.state = 'pending'
          ORDER BY d.position LIMIT 1), 0),
        (SELECT position FROM storeledger.change_feed_head) - e.enqueued_through
      FROM storeledger.change_endpoints e ORDER BY e.endpoint
      """, logger: logger
    ) { rows in
      var counts: [ChangeDeliveryCounts] = []
      for try await (endpoint, delivered, retrying, waiting, dead, lag, unqueued) in rows.decode(
        (String, Int64, Int64, Int64, Int64, Double, Int64).self)
      {
        counts.append(
          ChangeDeliveryCounts(
            endpoint: endpoint, delivered: Int(delivered), retrying: Int(retrying),
            waiting: Int(waiting), dead: Int(dead), lagSeconds: lag, unqueued: Int(unqueued)))
      }
      return counts
    }
  }
}
