import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The lists across accounts (schema/0024): accounts by what their views hold, and
/// subscriptions entering a status. The SQL text is fixed and every value is bound; a filter
/// left out binds null, which the statement's `IS NULL OR` drops before planning (unnamed
/// statements are planned with their values).
package enum ListStatements {
  /// The account filter's condition over binds $1–$9 (``accountBindings(_:)``).
  private static let accountsCondition = """
    ($1::integer IS NULL OR list_statuses @> ARRAY[$1::integer])
      AND ($2::text IS NULL OR list_entitlements @> ARRAY[$2::text])
      AND ($3::text IS NULL OR list_products @> ARRAY[$3::text])
      AND ($4::text IS NULL OR list_storefronts @> ARRAY[$4::text])
      AND ($5::text IS NULL OR list_environments @> ARRAY[$5::text])
      AND ($6::bigint IS NULL OR list_changed_ms >= $6::bigint)
      AND ($7::bigint IS NULL OR list_next_expiry_ms >= $7::bigint)
      AND ($8::bigint IS NULL OR list_next_expiry_ms < $8::bigint)
      AND ($9::text IS NULL OR app_account_token LIKE $9::text)
    """

  private static func accountBindings(_ filter: AccountListFilter) -> PostgresBindings {
    var binds = PostgresBindings()
    binds.append(filter.status)
    binds.append(filter.entitlement)
    binds.append(filter.productId)
    binds.append(filter.storefront)
    binds.append(filter.environment)
    binds.append(filter.changedSince?.milliseconds)
    binds.append(filter.expiresFrom?.milliseconds)
    binds.append(filter.expiresBefore?.milliseconds)
    binds.append(filter.tokenPrefix.map(likePattern(prefix:)))
    return binds
  }

  package static func accountsQuery(
    _ filter: AccountListFilter, after key: AccountListKey?, limit: Int
  ) -> PostgresQuery {
    var binds = accountBindings(filter)
    binds.append(key?.changedAt.milliseconds)
    binds.append(key?.appAccountToken)
    binds.append(Int64(limit))
    return PostgresQuery(
      unsafeSQL: """
        SELECT app_account_token, list_changed_ms, list_statuses, list_entitlements,
          list_products, list_storefronts, list_environments, list_next_expiry_ms,
          view IS NOT NULL
        FROM storeledger.account_views
        WHERE \(accountsCondition)
          AND ($10::bigint IS NULL
            OR (list_changed_ms, app_account_token) < ($10::bigint, $11::text))
        ORDER BY list_changed_ms DESC, app_account_token DESC
        LIMIT $12
        """, binds: binds)
  }

  package static func accountsCountQuery(_ filter: AccountListFilter) -> PostgresQuery {
    PostgresQuery(
      unsafeSQL: "SELECT count(*) FROM storeledger.account_views WHERE \(accountsCondition)",
      binds: accountBindings(filter))
  }

  /// `prefix%` with LIKE's own characters escaped (a token holds none, a typed prefix might).
  static func likePattern(prefix: String) -> String {
    var pattern = ""
    for character in prefix {
      if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
      pattern.append(character)
    }
    return pattern + "%"
  }

  package static func accounts(
    _ filter: AccountListFilter, after key: AccountListKey?, limit: Int, countTotal: Bool,
    on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<AccountListRow> {
    let rows = try await client.query(
      accountsQuery(filter, after: key, limit: limit), logger: logger
    ) { rows in
      var found: [AccountListRow] = []
      for try await row in rows.decode(
        (String, Int64, [Int32], [String], [String], [String], [String], Int64?, Bool).self)
      {
        found.append(
          AccountListRow(
            appAccountToken: row.0, changedAt: Timestamp(milliseconds: row.1), statuses: row.2,
            entitlements: row.3, products: row.4, storefronts: row.5, environments: row.6,
            nextExpiry: row.7.map(Timestamp.init(milliseconds:)), viewMade: row.8))
      }
      return found
    }
    guard countTotal else { return ListRead(rows: rows, total: nil) }
    let total = try await client.query(accountsCountQuery(filter), logger: logger) { rows in
      var total = 0
      for try await count in rows.decode(Int.self) { total = count }
      return total
    }
    return ListRead(rows: rows, total: total)
  }

  /// The transition filter's condition over binds $1–$3.
  private static let transitionsCondition = """
    to_status = $1::integer AND effective_at_ms >= $2::bigint AND effective_at_ms < $3::bigint
    """

  private static func transitionBindings(_ filter: StatusTransitionFilter) -> PostgresBindings {
    var binds = PostgresBindings()
    binds.append(filter.status)
    binds.append(filter.from.milliseconds)
    binds.append(filter.before.milliseconds)
    return binds
  }

  package static func transitionsQuery(
    _ filter: StatusTransitionFilter, after key: StatusTransitionKey?, limit: Int
  ) -> PostgresQuery {
    var binds = transitionBindings(filter)
    binds.append(key?.effectiveAt.milliseconds)
    binds.append(key?.appAccountToken)
    binds.append(key.map { Int32($0.ordinal) })
    binds.append(Int64(limit))
    return PostgresQuery(
      unsafeSQL: """
        SELECT ordinal, app_account_token, original_transaction_id, from_status, to_status,
          effective_at_ms, recorded_at_ms, cause
        FROM storeledger.status_history
        WHERE \(transitionsCondition)
          AND ($4::bigint IS NULL
            OR (effective_at_ms, app_account_token, ordinal) < ($4::bigint, $5::text, $6::integer))
        ORDER BY effective_at_ms DESC, app_account_token DESC, ordinal DESC
        LIMIT $7
        """, binds: binds)
  }

  package static func transitions(
    _ filter: StatusTransitionFilter, after key: StatusTransitionKey?, limit: Int,
    countTotal: Bool, on client: PostgresClient, logger: Logger
  ) async throws -> ListRead<StatusTransitionRow> {
    let rows = try await client.query(
      transitionsQuery(filter, after: key, limit: limit), logger: logger
    ) { rows in
      var found: [StatusTransitionRow] = []
      for try await row in rows.decode(
        (Int32, String, String, Int32?, Int32, Int64, Int64, String?).self)
      {
        found.append(
          StatusTransitionRow(
            ordinal: Int(row.0), appAccountToken: row.1, originalTransactionId: row.2,
            from: row.3, to: row.4, effectiveAt: Timestamp(milliseconds: row.5),
            recordedAt: Timestamp(milliseconds: row.6), cause: row.7))
      }
      return found
    }
    guard countTotal else { return ListRead(rows: rows, total: nil) }
    let total = try await client.query(
      PostgresQuery(
        unsafeSQL:
          "SELECT count(*) FROM storeledger.status_history WHERE \(transitionsCondition)",
        binds: transitionBindings(filter)), logger: logger
    ) { rows in
      var total = 0
      for try await count in rows.decode(Int.self) { total = count }
      return total
    }
    return ListRead(rows: rows, total: total)
  }
}
