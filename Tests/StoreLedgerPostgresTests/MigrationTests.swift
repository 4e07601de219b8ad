import Foundation
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing
import StoreLedgerCore

@Suite(.enabled(if: TestDatabase.shouldRun)) struct MigrationTests {
  @Test func secondRunIsANoOp() async throws {
    try await TestDatabase.withMigrated { database in
      let report = try await database.asAdmin { client in
        try await SchemaMigrator(client: client, logger: TestDatabase.logger).migrate()
      }
      #expect(report.applied.isEmpty)
      #expect(report.alreadyApplied == SchemaMigration.all.map(\.version))
      let recorded = try await database.asAdmin { client in
        try await Self.count(
          "SELECT count(*) FROM public.storeledger_schema_migrations", on: client)
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
        try await Self.count(
          "SELECT count(*) FROM pg_tables WHERE schemaname = 'storeledger' AND tablename = 'half'",
          on: client)
      }
      #expect(tables == 0)
    }
  }

  private static func count(_ query: PostgresQuery, on client: PostgresClient) async throws -> Int {
    try await client.query(query, logger: TestDatabase.logger) { rows in
      var count = -1
      for try await (value) in rows.decode(Int.self) { count = value }
      return count
    }
  }
}

@Suite(.enabled(if: TestDatabase.shouldRun)) struct DigestUpgradeTests {
  /// Migration 4 redefines `storeledger.event_digest`; rows hashed by the definition of
  /// migration 2 must still check, and new events must chain onto them.
  @Test func rowsHashedBeforeMigrationFourStillCheckAndChain() async throws {
    try await TestDatabase.withMigrated(to: Array(SchemaMigration.all.prefix(3))) { database in
      try await database.asAdmin { client in
        try await client.execute(
          """
          WITH first AS (
            SELECT storeledger.event_digest(decode(repeat('00', 32), 'hex'), 's', 1,
              '6f1c1a8e-2d59-5b35-9c1e-0c7b5f3c2a11', 'k1', 'test.v1', NULL, NULL,
              '2026-11-22 04:00:00.123456+00', '{"name": "Zoë", "n": [1, 2.50]}', NULL, '{}')
              AS hash)
          INSERT INTO storeledger.events (stream_id, stream_version, event_id, idempotency_key,
            event_type, environment, apple_signed_at, recorded_at, payload, raw_signed,
            metadata, prev_hash, hash)
          SELECT 's', 1, '6f1c1a8e-2d59-5b35-9c1e-0c7b5f3c2a11', 'k1', 'test.v1', NULL, NULL,
                 '2026-11-22 04:00:00.123456+00', '{"name": "Zoë", "n": [1, 2.50]}', NULL, '{}',
                 decode(repeat('00', 32), 'hex'), hash
          FROM first
          """, logger: TestDatabase.logger)
        _ = try await SchemaMigrator(client: client, logger: TestDatabase.logger).migrate()
      }
      try await database.withEventStore { store in
        let appended = try await store.append(
          [
            NewEvent(
              eventType: "test.v1", idempotencyKey: "k2", payload: Array(#"{"a":"ü"}"#.utf8),
              environment: "Sandbox", appleSignedAt: Date(timeIntervalSince1970: 1_700_000_000.5),
              rawSigned: "x.y.z")
          ], to: "s")
        #expect(appended.lastVersion == 2)
        let report = try await store.checkHashChain(streamId: "s")
        #expect(report.checkedEvents == 2)
        #expect(report.isIntact)
      }
    }
  }
}
