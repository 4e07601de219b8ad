import Foundation
import PostgresNIO
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerPostgres

/// The projector's per-batch read must cost what its accounts cost, not what the whole read
/// model costs: checked on the plan PostgreSQL actually runs, with statistics as stale as they
/// are on a busy server (no ANALYZE after the rows arrived).
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ReadModelPlanTests {
  @Test func readingSomeAccountsProbesOnlyTheirViews() async throws {
    try await TestDatabase.withMigrated { database in
      let tokens = try await Self.accounts(5_000, in: database)
      let asked = stride(from: 7, to: 5_000, by: 100).map { tokens[$0] }
      let text = try await database.asWriter { client in
        try await Self.explained(AccountViewStatements.changesAndEventsQuery(of: asked), on: client)
      }
      let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
      let plan = document?.first?["Plan"] as? [String: Any] ?? [:]
      let viewRowsRead = Self.rowsRead(from: "account_views", in: plan)
      #expect(viewRowsRead == asked.count, "read \(viewRowsRead) view rows for \(asked.count)")
    }
  }

  /// A rebuild's slice reads its own index rows and their accounts' view rows, not the whole
  /// read model's, and needs no sort (the rows come in the primary key's order): a rebuild
  /// costs what its accounts cost, not slices times accounts.
  @Test func aRebuildPageReadsOnlyItsAccounts() async throws {
    try await TestDatabase.withMigrated { database in
      let tokens = try await Self.accounts(5_000, in: database)
      let page = AccountViewsRebuildStatements.accountsEventsPage(
        after: tokens[2_000], stream: "acct:" + tokens[2_000], limit: 100)
      let (text, paged) = try await database.asWriter { client in
        let text = try await Self.explained(page, on: client)
        let paged = try await client.query(page, logger: TestDatabase.logger) { rows in
          try AccountEventPageReader.accounts(of: rows).map(\.token)
        }
        return (text, paged)
      }
      #expect(paged == Array(tokens[2_001...2_100]))
      let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
      let plan = document?.first?["Plan"] as? [String: Any] ?? [:]
      #expect(Self.rowsRead(from: "account_views", in: plan) == 100)
      #expect(Self.rowsRead(from: "account_streams", in: plan) == 100)
      #expect(!Self.nodeTypes(in: plan).contains("Sort"), "\(Self.nodeTypes(in: plan))")
    }
  }

  /// `count` accounts, each with a view row and one stream, without statistics; their tokens
  /// in order.
  static func accounts(_ count: Int, in database: TestDatabase) async throws -> [String] {
    let tokens = (0..<count).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
    try await database.asAdmin { client in
      try await client.execute(
        """
        INSERT INTO storeledger.account_views (app_account_token, changes)
        SELECT token, 1 FROM unnest(\(tokens)::text[]) AS token
        """, logger: TestDatabase.logger)
      try await client.execute(
        """
        INSERT INTO storeledger.account_streams (app_account_token, stream_id)
        SELECT token, 'acct:' || token FROM unnest(\(tokens)::text[]) AS token
        """, logger: TestDatabase.logger)
    }
    return tokens
  }

  /// Every node type of the plan.
  static func nodeTypes(in node: [String: Any]) -> [String] {
    [node["Node Type"] as? String ?? ""]
      + (node["Plans"] as? [[String: Any]] ?? []).flatMap { nodeTypes(in: $0) }
  }

  /// The statement run under `EXPLAIN (ANALYZE, FORMAT JSON)`: the plan it ran, as JSON.
  static func explained(_ query: PostgresQuery, on client: PostgresClient) async throws
    -> String
  {
    let explain = PostgresQuery(
      unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + query.sql, binds: query.binds)
    return try await client.query(explain, logger: TestDatabase.logger) { rows in
      var text = ""
      for try await line in rows.decode(String.self) { text += line }
      return text
    }
  }

  /// Rows the plan's scans of `relation` returned, over all their loops.
  static func rowsRead(from relation: String, in node: [String: Any]) -> Int {
    var total = 0
    if node["Relation Name"] as? String == relation {
      total += (node["Actual Rows"] as? Int ?? 0) * (node["Actual Loops"] as? Int ?? 1)
    }
    for child in node["Plans"] as? [[String: Any]] ?? [] {
      total += rowsRead(from: relation, in: child)
    }
    return total
  }
}
