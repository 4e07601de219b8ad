import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of the per-account read model (`storeledger.account_views`, schema/0007).
package enum AccountViewStatements {
  /// The `changes`, the events and the change derivation of each account, read in one
  /// statement (one snapshot, so each view stores exactly the changes it includes). An
  /// account without a view row (never named by an append) is absent.
  package static func changesAndEvents(
    of tokens: [String], on client: PostgresClient, logger: Logger
  ) async throws -> [String: AccountInput] {
    try await client.query(changesAndEventsQuery(of: tokens), logger: logger) { rows in
      try await decodeAccounts(rows)
    }
  }

  /// One index probe per token for its view row: `OFFSET 0` keeps that lookup a subquery.
  /// Written as a join, a planner without fresh statistics merged the tokens against the
  /// whole primary key, reading every view on every projector batch.
  package static func changesAndEventsQuery(of tokens: [String]) -> PostgresQuery {
    """
    SELECT t.token, v.changes, d.version, d.derived_events, d.derived_changes, d.derived_ms,
           pg_snapshot_xmin(pg_current_snapshot())::text,
           e.event_type, e.payload::text, e.recorded_at, e.idempotency_key, e.tx_id::text,
           e.seq, e.joined_tx::text, e.first_seen_at, e.stream_id
    FROM unnest(\(tokens)::text[]) AS t(token)
    CROSS JOIN LATERAL (
      SELECT changes FROM storeledger.account_views
      WHERE app_account_token = t.token OFFSET 0
    ) v
    LEFT JOIN LATERAL (
      SELECT version, derived_events, derived_changes, derived_ms
      FROM storeledger.change_derivations WHERE app_account_token = t.token OFFSET 0
    ) d ON true
    LEFT JOIN LATERAL (
      SELECT x.event_type, x.payload, x.recorded_at, x.idempotency_key, a.stream_id,
             x.stream_version, x.tx_id, x.seq, a.joined_tx, a.first_seen_at
      FROM storeledger.account_streams a
      CROSS JOIN LATERAL (
        SELECT event_type, payload, recorded_at, idempotency_key, stream_version, tx_id, seq
        FROM storeledger.events WHERE stream_id = a.stream_id AND erased_by IS NULL
          ORDER BY stream_version
      ) x
      WHERE a.app_account_token = t.token
    ) e ON true
    ORDER BY t.token, e.stream_id, e.stream_version
    """
  }

  /// The rows of ``changesAndEventsQuery(of:)``, an account's events in order.
  package static func decodeAccounts(_ rows: StatementRows) async throws
    -> [String: AccountInput]
  {
    var accounts: [String: AccountInput] = [:]
    for try await row in rows {
      let cells = row.makeRandomAccess()
      let token = try cells[0].decode(String.self)
      var account =
        try accounts[token]
        ?? AccountInput(
          changes: cells[1].decode(Int64.self),
          derivation: ChangeDerivationMarker(
            version: cells[2].decode(Int64?.self), events: cells[3].decode(Int64?.self),
            changes: cells[4].decode(Int64?.self), instant: cells[5].decode(Int64?.self)),
          fence: UInt64(cells[6].decode(String.self)).orThrow())
      if let type = try cells[7].decode(String?.self),
        let payload = try cells[8].decode(String?.self)
      {
        let recordedAt = try cells[9].decode(Date.self)
        account.steps.append(
          try EventCodec.step(
            eventType: type, payload: payload.utf8, stream: cells[15].decode(String.self),
            recordedAt: Timestamp(recordedAt), key: try cells[10].decode(String?.self)))
        account.places.append(
          try AccountInput.Place(
            transaction: UInt64(cells[11].decode(String.self)).orThrow(),
            sequence: cells[12].decode(Int64.self),
            joined: cells[13].decode(String?.self).flatMap { UInt64($0) },
            recordedAt: Timestamp(recordedAt),
            joinedAt: Timestamp(cells[14].decode(Date.self))))
      }
      accounts[token] = account
    }
    return accounts
  }

  /// Stores views in one statement. Never replaces a view that includes more changes (a
  /// slower projector finishing late); rows are locked in token order, as appends lock them.
  @discardableResult
  package static func store(
    _ views: [ProjectedAccountView], projection: String, on client: PostgresClient, logger: Logger
  ) async throws -> Int {
    guard !views.isEmpty else { return 0 }
    let unbounded = Int64.min
    let lists = views.map { AccountListRow($0) }
    let history = StatusHistoryRows(views)
    return try await client.execute(
      """
      WITH locked AS (
        SELECT app_account_token FROM storeledger.account_views
        WHERE app_account_token = ANY(\(views.map(\.token))::text[])
        ORDER BY app_account_token FOR UPDATE
      ), stored AS (
      UPDATE storeledger.account_views AS v
      SET projected_changes = u.changes, projection = \(projection), view = u.view::jsonb,
        stable_from_ms = NULLIF(u.from_ms, \(unbounded)),
        stable_until_ms = NULLIF(u.until_ms, \(unbounded)), projected_at = now(),
        list_statuses = u.statuses::integer[], list_entitlements = u.entitlements::text[],
        list_products = u.products::text[], list_storefronts = u.storefronts::text[],
        list_environments = u.environments::text[],
        list_next_expiry_ms = NULLIF(u.next_expiry_ms, \(unbounded)),
        list_changed_ms = coalesce(NULLIF(u.from_ms, \(unbounded)), 0)
      FROM locked, unnest(
        \(views.map(\.token))::text[], \(views.map(\.changes))::bigint[],
        \(views.map(\.summaryJSON))::text[],
        \(views.map { $0.interval.from?.milliseconds ?? unbounded })::bigint[],
        \(views.map { $0.interval.until?.milliseconds ?? unbounded })::bigint[],
        \(lists.map(\.statusesLiteral))::text[], \(lists.map(\.entitlementsLiteral))::text[],
        \(lists.map(\.productsLiteral))::text[], \(lists.map(\.storefrontsLiteral))::text[],
        \(lists.map(\.environmentsLiteral))::text[],
        \(lists.map { $0.nextExpiry?.milliseconds ?? unbounded })::bigint[]
      ) AS u(token, changes, view, from_ms, until_ms, statuses, entitlements, products,
        storefronts, environments, next_expiry_ms)
      WHERE locked.app_account_token = u.token AND v.app_account_token = u.token
        AND v.projected_changes <= u.changes
      RETURNING v.app_account_token
      ), history AS (
        -- The status histories of the views stored here, replaced whole.
        SELECT storeledger.replace_status_history(
          ARRAY(SELECT app_account_token FROM stored
            WHERE app_account_token = ANY(\(history.tokens)::text[])), \(history.json)::jsonb)
      )
      SELECT app_account_token FROM stored, (SELECT count(*) FROM history) AS replaced
      """, logger: logger)
  }

  /// The stored status histories of `tokens`, oldest entry first.
  package static func statusHistories(
    of tokens: [String], on client: PostgresClient, logger: Logger
  ) async throws -> [String: [StatusTransitionRow]] {
    try await client.query(
      """
      SELECT ordinal, app_account_token, original_transaction_id, from_status, to_status,
        effective_at_ms, recorded_at_ms, cause
      FROM storeledger.status_history WHERE app_account_token = ANY(\(tokens)::text[])
      ORDER BY app_account_token, ordinal
      """, logger: logger
    ) { rows in
      var found: [String: [StatusTransitionRow]] = [:]
      for try await row in rows.decode(
        (Int32, String, String, Int32?, Int32, Int64, Int64, String?).self)
      {
        found[row.1, default: []].append(
          StatusTransitionRow(
            ordinal: Int(row.0), appAccountToken: row.1, originalTransactionId: row.2,
            from: row.3, to: row.4, effectiveAt: Timestamp(milliseconds: row.5),
            recordedAt: Timestamp(milliseconds: row.6), cause: row.7))
      }
      return found
    }
  }

  /// The accounts the given streams belong to.
  package static func accounts(
    ofStreams streams: [String], on client: PostgresClient, logger: Logger
  )
    async throws -> [String]
  {
    try await strings(
      """
      SELECT DISTINCT app_account_token FROM storeledger.account_streams
      WHERE stream_id = ANY(\(streams))
      """, on: client, logger: logger)
  }

  /// Accounts whose view no longer holds at `time` (its stable interval has ended), oldest
  /// first.
  package static func expired(
    at time: Timestamp, limit: Int, on client: PostgresClient, logger: Logger
  )
    async throws -> [String]
  {
    try await strings(
      """
      SELECT app_account_token FROM storeledger.account_views
      WHERE stable_until_ms <= \(time.milliseconds)
      ORDER BY stable_until_ms LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// Accounts with a view from other rules or another catalog, or none yet.
  package static func foreign(
    to projection: String, limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> [String] {
    try await strings(
      """
      SELECT app_account_token FROM storeledger.account_views
      WHERE projection IS DISTINCT FROM \(projection) LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// Every account (of `shard`), in token order after `token`.
  package static func accounts(
    after token: String, limit: Int, shard: WorkShard = .whole, on client: PostgresClient,
    logger: Logger
  )
    async throws -> [String]
  {
    try await strings(
      """
      SELECT app_account_token FROM storeledger.account_views
      WHERE app_account_token > \(token)
        AND (\(shard.count) = 1
          OR ((hashtextextended(app_account_token, 0) % \(shard.count)) + \(shard.count))
            % \(shard.count) = \(shard.index))
      ORDER BY app_account_token LIMIT \(limit)
      """, on: client, logger: logger)
  }

  package static func strings(_ query: PostgresQuery, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await client.query(query, logger: logger) { rows in
      var values: [String] = []
      for try await value in rows.decode(String.self) { values.append(value) }
      return values
    }
  }
}
