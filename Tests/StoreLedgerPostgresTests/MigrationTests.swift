import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@Suite(.enabled(if: TestDatabase.shouldRun)) struct MigrationTests {
  @Test func secondRunIsANoOp() async throws {
    try await TestDatabase.withMigrated { database in
      let report = try await database.asAdmin { client in
        try await SchemaMigrator(client: client, logger: TestDatabase.logger).migrate()
      }
      #expect(report.applied.isEmpty)
      #expect(report.alreadyApplied == SchemaMigration.all.map(\.version))
      let recorded = try await database.asAdmin { client in
        let rows = try await client.query(
          "SELECT count(*) FROM public.storeledger_schema_migrations", logger: TestDatabase.logger)
        var count = 0
        for try await (value) in rows.decode(Int.self) { count = value }
        return count
      }
      #expect(recorded == SchemaMigration.all.count)
    }
  }

  @Test func concurrentMigratorsApplyEachMigrationOnce() async throws {
    try await TestDatabase.withMigrated { database in
      // A second database, migrated by four migrators at once.
      let extra = SchemaMigration(
        version: 99, name: "extra", sql: "CREATE TABLE storeledger.extra (id int);")
      let reports = try await withThrowingTaskGroup(of: SchemaMigrator.Report.self) { group in
        for _ in 0..<4 {
          group.addTask {
            try await database.asAdmin { client in
              try await SchemaMigrator(
                client: client, logger: TestDatabase.logger,
                migrations: SchemaMigration.all + [extra]
              ).migrate()
            }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(reports.filter { $0.applied == [99] }.count == 1)
      #expect(reports.filter { $0.applied.isEmpty }.count == 3)
    }
  }

  @Test func changedAppliedMigrationIsRefused() async throws {
    try await TestDatabase.withMigrated { database in
      let first = SchemaMigration.all[0]
      let changed =
        [
          SchemaMigration(
            version: first.version, name: first.name, sql: first.sql + "\n-- edited\n")
        ]
        + SchemaMigration.all.dropFirst()
      let error = await #expect(throws: EventStoreError.self) {
        try await database.asAdmin { client in
          try await SchemaMigrator(client: client, logger: TestDatabase.logger, migrations: changed)
            .migrate()
        }
      }
      #expect(error?.code == .migrationChanged)
    }
  }

  @Test func failingMigrationLeavesNothingBehind() async throws {
    try await TestDatabase.withMigrated { database in
      let broken = SchemaMigration(
        version: 98, name: "broken",
        sql: "CREATE TABLE storeledger.half (id int); SELECT no_such_function();")
      await #expect(throws: EventStoreError.self) {
        try await database.asAdmin { client in
          try await SchemaMigrator(
            client: client, logger: TestDatabase.logger, migrations: SchemaMigration.all + [broken]
          ).migrate()
        }
      }
      let tables = try await database.asAdmin { client in
        let rows = try await client.query(
          "SELECT count(*) FROM pg_tables WHERE schemaname = 'storeledger' AND tablename = 'half'",
          logger: TestDatabase.logger)
        var count = -1
        for try await (value) in rows.decode(Int.self) { count = value }
        return count
      }
      #expect(tables == 0)
    }
  }
}
