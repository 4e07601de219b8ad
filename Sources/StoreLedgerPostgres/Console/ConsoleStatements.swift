import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The support console's questions: which accounts a search names, and the numbers
/// an on-call person looks at first. Read only.
package enum ConsoleStatements {
  /// The accounts `query` names, each with what matched: the account token itself (any letter
  /// case), an originalTransactionId or transactionId of its streams, an appTransactionId, or
  /// an order id a lookup recorded (`order:<id>`).
  /// Also by the start of a token (6 hex digits or more, in any spelling) or of a transaction
  /// id (6 digits or more, when no transaction has the whole id), and by the backend's alias.
  package static func accounts(
    matching query: String, environments: [String], on client: PostgresClient, logger: Logger
  ) async throws -> [(token: String, matched: String)] {
    let chains = environments.map { "sub:\($0):\(query)" }
    let tokenPrefix = AppAccountToken.prefixFromAnySpelling(query).flatMap {
      $0.filter(\.isHexDigit).count >= 6 && $0.count < 36 ? $0 + "%" : nil
    }
    let transactionPrefix: String? =
      query.count >= 6 && query.count < 40 && query.allSatisfy(\.isASCII)
        && query.allSatisfy(\.isNumber) ? query + "%" : nil
    return try await client.query(
      """
      WITH transaction_streams AS (
        SELECT DISTINCT stream_id FROM storeledger.events
        WHERE storeledger.event_transaction_id(payload) = \(query)
          AND event_type LIKE 'appstore.%'
      ), transaction_prefix_streams AS (
        SELECT DISTINCT stream_id FROM (
          SELECT stream_id FROM storeledger.events
          WHERE \(transactionPrefix)::text IS NOT NULL
            AND storeledger.event_transaction_id(payload) LIKE \(transactionPrefix)
            AND event_type LIKE 'appstore.%'
            AND NOT EXISTS (SELECT 1 FROM transaction_streams)
          LIMIT 500) p
      ), app_downloads AS (
        SELECT 'sub:' || environment || ':' || original_transaction_id AS stream_id
        FROM storeledger.app_transactions
        WHERE environment = ANY(\(environments)::text[]) AND app_transaction_id = \(query)
      ), orders AS (
        SELECT DISTINCT e.stream_id FROM storeledger.events o
        CROSS JOIN LATERAL jsonb_array_elements_text(
          o.payload #> '{orderLookedUp,transactionIds}') AS t(id)
        JOIN storeledger.events e
          ON storeledger.event_transaction_id(e.payload) = t.id AND e.event_type LIKE 'appstore.%'
        WHERE o.stream_id = 'order:' || \(query)
      )
      SELECT app_account_token, 'appAccountToken' FROM storeledger.account_streams
      WHERE app_account_token = lower(\(query))
      UNION
      SELECT app_account_token, 'originalTransactionId' FROM storeledger.account_streams
      WHERE stream_id = ANY(\(chains)::text[])
      UNION
      SELECT a.app_account_token, 'transactionId' FROM storeledger.account_streams a
      JOIN transaction_streams t USING (stream_id)
      UNION
      SELECT a.app_account_token, 'appTransactionId' FROM storeledger.account_streams a
      JOIN app_downloads d USING (stream_id)
      UNION
      SELECT a.app_account_token, 'orderId' FROM storeledger.account_streams a
      JOIN orders o USING (stream_id)
      UNION
      SELECT a.app_account_token, 'transactionId prefix' FROM storeledger.account_streams a
      JOIN transaction_prefix_streams t USING (stream_id)
      UNION
      SELECT * FROM (
        SELECT app_account_token, 'appAccountToken prefix' FROM storeledger.account_views
        WHERE \(tokenPrefix)::text IS NOT NULL AND app_account_token LIKE \(tokenPrefix)
        LIMIT 50) v
      UNION
      SELECT app_account_token, 'alias' FROM storeledger.account_aliases WHERE alias = \(query)
      ORDER BY 1, 2
      LIMIT \(AccountSearchMatch.limit)
      """, logger: logger
    ) { rows in
      var found: [(String, String)] = []
      for try await (token, matched) in rows.decode((String, String).self) {
        found.append((token, matched))
      }
      return found
    }
  }

  /// The overview's numbers from the read models and the log's newest rows.
  package static func overview(
    since: Date, on client: PostgresClient, logger: Logger
  ) async throws -> ConsoleOverview {
    var overview = try await client.query(
      """
      SELECT 'status', s->>'status', count(*) FROM storeledger.account_views,
        jsonb_array_elements(view->'subscriptions') s GROUP BY 2
      UNION ALL
      SELECT 'entitlement', e->>'entitlement', count(*) FROM storeledger.account_views,
        jsonb_array_elements(view->'entitlements') e WHERE e->>'active' = 'true' GROUP BY 2
      UNION ALL
      SELECT 'accounts', NULL, count(*) FROM storeledger.account_views
      ORDER BY 1, 2
      """, logger: logger
    ) { rows in
      var overview = ConsoleOverview()
      for try await (kind, name, count) in rows.decode((String, String?, Int).self) {
        switch kind {
        case "status": overview.subscriptionsByStatus[Int(name ?? "") ?? 0] = count
        case "entitlement": overview.entitlementsInForce[name ?? ""] = count
        default: overview.accounts = count
        }
      }
      return overview
    }
    let last = try await client.query(
      """
      SELECT recorded_at, payload #>> '{notification,notificationType}',
        (SELECT count(*) FROM storeledger.events
         WHERE recorded_at >= \(since) AND event_type LIKE 'appstore.notification.%')
      FROM storeledger.events WHERE event_type LIKE 'appstore.notification.%'
      ORDER BY tx_id DESC, seq DESC LIMIT 1
      """, logger: logger
    ) { rows in
      var last: (Date, String?, Int)?
      for try await row in rows.decode((Date, String?, Int).self) { last = row }
      return last
    }
    if let (at, type, recent) = last {
      overview.lastNotificationAt = at
      overview.lastNotificationType = type
      overview.notificationsSince = recent
    }
    return overview
  }
}
