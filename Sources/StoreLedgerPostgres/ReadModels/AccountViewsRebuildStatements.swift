import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of a versioned rebuild (schema/0010): the functions it calls create, fill,
/// switch and drop the versions' tables, so no table name is ever composed here.
package enum AccountViewsRebuildStatements {
  package static func begin(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await single(
      "SELECT storeledger.begin_account_views_rebuild()", as: Int32.self, on: client,
      logger: logger
    ).map(Int.init) ?? 0
  }

  package static func liveVersion(on client: PostgresClient, logger: Logger) async throws -> Int? {
    try await single(
      "SELECT version FROM storeledger.account_views_versions WHERE state = 'live'",
      as: Int32.self, on: client, logger: logger
    ).map(Int.init)
  }

  package static func accountCount(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await single(
      "SELECT count(DISTINCT app_account_token) FROM storeledger.account_streams",
      as: Int64.self, on: client, logger: logger
    ).map(Int.init) ?? 0
  }

  /// The next `limit` rows of the account index after (`token`, `stream`) in its primary
  /// key's order, each with its stream's events (type, payload and key: a projection folds all
  /// of them, so the time each was recorded is not needed) and its account's `changes` (0
  /// without a view row); a stream without events comes once, with null event columns. Rows:
  /// token, stream, changes, event type, payload, key. Empty strings start at the first row.
  ///
  /// The `limit` index rows are read from the primary key in its order whatever the
  /// statistics say, and each account's view row and each stream's events through their
  /// primary keys in a nested loop, so a page costs what its rows cost and nothing is sorted.
  /// `OFFSET 0` keeps both lateral reads subqueries: flattened, the planner may hash the whole
  /// views table for every page and sort the result. With `shard`, only the accounts of that
  /// share (a rebuild split across processes).
  package static func accountsEventsPage(
    after token: String, stream: String, limit: Int, shard: WorkShard = .whole
  ) -> PostgresQuery {
    """
    SELECT a.app_account_token, a.stream_id, coalesce(v.changes, 0), e.event_type,
           e.payload::text, e.idempotency_key, e.recorded_at
    FROM (
      SELECT app_account_token, stream_id FROM storeledger.account_streams
      WHERE (app_account_token, stream_id) > (\(token), \(stream))
        AND (\(shard.count) = 1
          OR ((hashtextextended(app_account_token, 0) % \(shard.count)) + \(shard.count))
            % \(shard.count) = \(shard.index))
      ORDER BY app_account_token, stream_id LIMIT \(Int64(limit))
    ) a
    LEFT JOIN LATERAL (
      SELECT changes FROM storeledger.account_views
      WHERE app_account_token = a.app_account_token OFFSET 0
    ) v ON true
    LEFT JOIN LATERAL (
      SELECT event_type, payload, idempotency_key, recorded_at FROM storeledger.events
      WHERE stream_id = a.stream_id AND erased_by IS NULL ORDER BY stream_version OFFSET 0
    ) e ON true
    ORDER BY a.app_account_token, a.stream_id
    """
  }

  package static func store(
    _ views: [ProjectedAccountView], version: Int, projection: String,
    on client: PostgresClient, logger: Logger
  ) async throws {
    let unbounded = Int64.min
    let lists = views.map { AccountListRow($0) }
    let history = StatusHistoryRows(views)
    _ = try await client.query(
      """
      WITH stored AS (
      SELECT storeledger.store_rebuilt_account_views(
        \(Int32(version)), \(projection), \(views.map(\.token))::text[],
        \(views.map(\.changes))::bigint[], \(views.map(\.summaryJSON))::text[],
        array_replace(\(views.map { $0.interval.from?.milliseconds ?? unbounded })::bigint[],
          \(unbounded), NULL),
        array_replace(\(views.map { $0.interval.until?.milliseconds ?? unbounded })::bigint[],
          \(unbounded), NULL),
        \(lists.map(\.statusesLiteral))::text[], \(lists.map(\.entitlementsLiteral))::text[],
        \(lists.map(\.productsLiteral))::text[], \(lists.map(\.storefrontsLiteral))::text[],
        \(lists.map(\.environmentsLiteral))::text[],
        array_replace(\(lists.map { $0.nextExpiry?.milliseconds ?? unbounded })::bigint[],
          \(unbounded), NULL))
      ), history AS (
        -- Not versioned: a function of the log, the status history is replaced in place.
        SELECT storeledger.replace_status_history(\(history.tokens)::text[], \(history.json)::jsonb)
      )
      SELECT 1 FROM stored, history
      """, logger: logger
    ) { rows in for try await _ in rows {} }
  }

  /// Switches `version` live; returns the accounts whose new view is not current.
  package static func switchLive(to version: Int, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await client.query(
      "SELECT app_account_token FROM storeledger.switch_account_views(\(Int32(version)))",
      logger: logger
    ) { rows in
      var tokens: [String] = []
      for try await token in rows.decode(String.self) { tokens.append(token) }
      return tokens
    }
  }

  package static func drop(_ version: Int, on client: PostgresClient, logger: Logger) async throws {
    _ = try await client.query(
      "SELECT storeledger.drop_account_views_version(\(Int32(version)))::text", logger: logger
    ) { rows in for try await _ in rows {} }
  }

  package static func versions(on client: PostgresClient, logger: Logger) async throws
    -> [AccountViewsVersion]
  {
    try await client.query(
      """
      SELECT version, state, projection, accounts, created_at, switched_at, retired_at
      FROM storeledger.account_views_versions ORDER BY version
      """, logger: logger
    ) { rows in
      var versions: [AccountViewsVersion] = []
      for try await (version, state, projection, accounts, created, switched, retired)
        in rows.decode((Int32, String, String?, Int64?, Date, Date?, Date?).self)
      {
        versions.append(
          AccountViewsVersion(
            version: Int(version), state: state, projection: projection,
            accounts: accounts.map(Int.init), createdAt: created, switchedAt: switched,
            retiredAt: retired))
      }
      return versions
    }
  }

  package static func differences(from version: Int, on client: PostgresClient, logger: Logger)
    async throws -> [AccountViewDifference]
  {
    try await client.query(
      """
      SELECT app_account_token, live::text, retired::text
      FROM storeledger.account_views_differences(\(Int32(version)))
      """, logger: logger
    ) { rows in
      var differences: [AccountViewDifference] = []
      for try await (token, live, retired) in rows.decode((String, String?, String?).self) {
        differences.append(
          AccountViewDifference(appAccountToken: token, live: live, retired: retired))
      }
      return differences
    }
  }

  private static func single<Value: PostgresDecodable & Sendable>(
    _ query: PostgresQuery, as type: Value.Type, on client: PostgresClient, logger: Logger
  ) async throws -> Value? {
    try await client.query(query, logger: logger) { rows in
      var value: Value?
      for try await row in rows.decode(Value.self) { value = row }
      return value
    }
  }
}
