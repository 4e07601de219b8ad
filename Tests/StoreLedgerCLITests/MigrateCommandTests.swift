import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@Suite struct MigrateCommandTests {
  @Test(.enabled(if: TestDatabase.shouldRun))
  func migratingAMigratedDatabaseChangesNothing() async throws {
    try await TestDatabase.withMigrated { database in
      let url =
        "postgres://postgres@\(database.adminURL.host):\(database.adminURL.port)/\(database.name)"
      let text = try CommandLineRunner.run(["migrate", "--database-url", url])
      #expect(text.status == 0, "\(text.standardError)")
      let versions = SchemaMigration.all.map(\.version)
      #expect(
        text.standardOutput.contains(
          "schema up to date (\(versions.count) migrations already applied)"))
      let json = try CommandLineRunner.run(["migrate", "--database-url", url, "--json"])
      let list = versions.map(String.init).joined(separator: ",")
      #expect(
        json.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
          == #"{"applied":[],"alreadyApplied":["# + list + "]}")
    }
  }

  @Test func badURLIsAUsageError() throws {
    let result = try CommandLineRunner.run(["migrate", "--database-url", "mysql://x"])
    #expect(result.status == 2)
    #expect(result.standardError.contains("postgres://"))
  }

  @Test func unreachableDatabaseFailsWithACode() throws {
    let result = try CommandLineRunner.run([
      "migrate", "--database-url", "postgres://nobody@127.0.0.1:1/none", "--timeout", "3",
    ])
    #expect(result.status == 1)
    #expect(result.standardError.contains("database_connection_refused: "))
    #expect(result.standardError.contains("127.0.0.1:1"))
  }
}
