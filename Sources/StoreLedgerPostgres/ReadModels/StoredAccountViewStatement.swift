import PostgresNIO
import StoreLedgerCore

/// The read of one account's view, prepared once per connection: it is the statement every
/// entitlement query runs, and parsing and planning it each time cost more than running it.
struct StoredAccountViewStatement: PostgresPreparedStatement {
  static let name = "storeledger_account_view_v1"
  static let sql = """
    SELECT changes, projected_changes, projection, view::text, stable_from_ms, stable_until_ms
    FROM storeledger.account_views WHERE app_account_token = $1
    """
  typealias Row = StoredAccountView

  var token: String

  func makeBindings() throws -> PostgresBindings {
    var bindings = PostgresBindings()
    bindings.append(token)
    return bindings
  }

  func decodeRow(_ row: PostgresRow) throws -> StoredAccountView {
    let (changes, projected, projection, json, from, until) = try row.decode(
      (Int64, Int64, String?, String?, Int64?, Int64?).self)
    return StoredAccountView(
      changes: changes, projectedChanges: projected, projection: projection, summaryJSON: json,
      interval: StableInterval(
        from: from.map(Timestamp.init(milliseconds:)),
        until: until.map(Timestamp.init(milliseconds:))))
  }
}
