import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// How the stored views are read (`storeledger.account_views`).
extension AccountViewSlice {
  /// The part of `token`'s view, nil when the account has no view row.
  package static func read(
    _ part: Part, of token: String, on client: PostgresClient, logger: Logger
  ) async throws -> AccountViewSlice? {
    switch part {
    case .entitlements: try await read(Entitlements.self, of: token, on: client, logger: logger)
    case .subscriptions: try await read(Subscriptions.self, of: token, on: client, logger: logger)
    case .consumables: try await read(Consumables.self, of: token, on: client, logger: logger)
    }
  }

  /// The whole stored view (an `AccountSummary` as JSON) of `token`, nil without a view row.
  package static func readWhole(of token: String, on client: PostgresClient, logger: Logger)
    async throws -> AccountViewSlice?
  {
    try await read(WholeView.self, of: token, on: client, logger: logger)
  }

  /// The whole stored views of `tokens` that have a view row, by token: one statement for a
  /// page of accounts (the audit's).
  package static func readWhole(
    of tokens: [String], on client: PostgresClient, logger: Logger
  ) async throws -> [String: AccountViewSlice] {
    try await client.query(
      """
      SELECT app_account_token, changes, projected_changes, projection, view::text,
             stable_from_ms, stable_until_ms
      FROM storeledger.account_views WHERE app_account_token = ANY(\(tokens)::text[])
      """, logger: logger
    ) { rows in
      var slices: [String: AccountViewSlice] = [:]
      for try await (token, changes, projected, projection, json, from, until) in rows.decode(
        (String, Int64, Int64, String?, ByteBuffer?, Int64?, Int64?).self)
      {
        slices[token] = AccountViewSlice(
          changes: changes, projectedChanges: projected, projection: projection,
          json: json.map { Array($0.readableBytesView) },
          from: from, until: until)
      }
      return slices
    }
  }

  private static func read<Part: AccountViewPart>(
    _ part: Part.Type, of token: String, on client: PostgresClient, logger: Logger
  ) async throws -> AccountViewSlice? {
    try await client.withConnection { connection in
      try await connection.failingOnClose { connection in
        var slice: AccountViewSlice?
        for try await row in try await connection.execute(
          Statement<Part>(token: token), logger: logger)
        {
          slice = row
        }
        return slice
      }
    }
  }
}

/// Which part a prepared statement reads, and how PostgreSQL cuts it out of the stored view.
protocol AccountViewPart: SendableMetatype {
  static var name: String { get }
  static var expression: String { get }
}

/// The whole view, for the library's queries and the audit.
enum WholeView: AccountViewPart {
  static let name = "storeledger_account_view_v2"
  static let expression = "view::text"
}

enum Entitlements: AccountViewPart {
  static let name = "storeledger_account_view_entitlements_v1"
  static let expression = "(view->'entitlements')::text"
}

enum Subscriptions: AccountViewPart {
  static let name = "storeledger_account_view_subscriptions_v1"
  static let expression = "(view->'subscriptions')::text"
}

/// Balances without the account token each entry repeats: as the API returns them.
enum Consumables: AccountViewPart {
  static let name = "storeledger_account_view_consumables_v1"
  static let expression = """
    (SELECT coalesce(jsonb_agg(c - 'appAccountToken'), '[]')
     FROM jsonb_array_elements(view->'consumables') c)::text
    """
}

/// Prepared once per connection: the statement every account query runs, and parsing and
/// planning it each time cost more than running it. PostgresNIO runs prepared statements only
/// with streamed rows (which ``StatementRows`` avoids); this one returns at most one row, so no
/// rows can arrive after a paused batch.
struct Statement<Part: AccountViewPart>: PostgresPreparedStatement {
  static var name: String { Part.name }
  static var sql: String {
    """
    SELECT changes, projected_changes, projection, \(Part.expression), stable_from_ms,
           stable_until_ms
    FROM storeledger.account_views WHERE app_account_token = $1
    """
  }
  typealias Row = AccountViewSlice

  var token: String

  func makeBindings() throws -> PostgresBindings {
    var bindings = PostgresBindings()
    bindings.append(token)
    return bindings
  }

  func decodeRow(_ row: PostgresRow) throws -> AccountViewSlice {
    let (changes, projected, projection, json, from, until) = try row.decode(
      (Int64, Int64, String?, ByteBuffer?, Int64?, Int64?).self)
    return AccountViewSlice(
      changes: changes, projectedChanges: projected, projection: projection,
      json: json.map { Array($0.readableBytesView) },
      from: from, until: until)
  }
}
