import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Settings every engine session starts with.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SessionSettingsTests {
  @Test func sessionsRunWithoutJIT() async throws {
    try await TestDatabase.withMigrated { database in
      let setting = try await database.asWriter { client in
        try await client.query("SHOW jit", logger: TestDatabase.logger) { rows in
          var value = ""
          for try await text in rows.decode(String.self) { value = text }
          return value
        }
      }
      #expect(setting == "off")
    }
  }
}
