import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

/// The statements of the per-account read model (`storeledger.account_views`, schema/0007).
enum AccountViews {
  static func stored(_ token: String, on client: PostgresClient, logger: Logger) async throws
    -> StoredAccountView?
  {
    try await client.query(
      """
      SELECT changes, projected_changes, projection, view::text, stable_from_ms, stable_until_ms
      FROM storeledger.account_views WHERE app_account_token = \(token)
      """, logger: logger
    ) { rows in
      var stored: StoredAccountView?
      for try await (changes, projected, projection, json, from, until) in rows.decode(
        (Int64, Int64, String?, String?, Int64?, Int64?).self)
      {
        stored = StoredAccountView(
          changes: changes, projectedChanges: projected, projection: projection,
          summaryJSON: json,
          interval: StableInterval(
            from: from.map(Timestamp.init(milliseconds:)),
            until: until.map(Timestamp.init(milliseconds:))))
      }
      return stored
    }
  }

  /// The account's `changes`; nil when no append ever named it.
  static func changes(of token: String, on connection: PostgresConnection, logger: Logger)
    async throws -> Int64?
  {
    try await connection.query(
      "SELECT changes FROM storeledger.account_views WHERE app_account_token = \(token)",
      logger: logger
    ) { rows in
      var changes: Int64?
      for try await value in rows.decode(Int64.self) { changes = value }
      return changes
    }
  }

  /// Stores a summary computed from the log as it was when `changes` was read. Never
  /// replaces a view that includes more changes (a slower projector finishing late).
  @discardableResult
  static func store(
    _ token: String, summaryJSON: String, interval: StableInterval, changes: Int64,
    projection: String, on client: PostgresClient, logger: Logger
  ) async throws -> Bool {
    try await client.execute(
      """
      UPDATE storeledger.account_views
      SET projected_changes = \(changes), projection = \(projection),
        view = \(summaryJSON)::jsonb, stable_from_ms = \(interval.from?.milliseconds),
        stable_until_ms = \(interval.until?.milliseconds), projected_at = now()
      WHERE app_account_token = \(token) AND projected_changes <= \(changes)
      RETURNING app_account_token
      """, logger: logger) == 1
  }

  /// The accounts the given streams belong to.
  static func accounts(ofStreams streams: [String], on client: PostgresClient, logger: Logger)
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
  static func expired(at time: Timestamp, limit: Int, on client: PostgresClient, logger: Logger)
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
  static func foreign(
    to projection: String, limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> [String] {
    try await strings(
      """
      SELECT app_account_token FROM storeledger.account_views
      WHERE projection IS DISTINCT FROM \(projection) LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// Every account, in token order after `token`.
  static func accounts(after token: String, limit: Int, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await strings(
      """
      SELECT app_account_token FROM storeledger.account_views
      WHERE app_account_token > \(token) ORDER BY app_account_token LIMIT \(limit)
      """, on: client, logger: logger)
  }

  private static func strings(_ query: PostgresQuery, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await client.query(query, logger: logger) { rows in
      var values: [String] = []
      for try await value in rows.decode(String.self) { values.append(value) }
      return values
    }
  }
}
