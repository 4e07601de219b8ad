import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@Suite(.enabled(if: TestDatabase.shouldRun)) struct ImmutabilityTests {
  func sqlState(of sql: String, on client: PostgresClient) async -> String? {
    do {
      try await client.execute(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger)
      return nil
    } catch let error as PSQLError {
      return error.serverInfo?[.sqlState]
    } catch {
      return "not a PSQLError"
    }
  }

  static let changes = [
    "UPDATE storeledger.events SET payload = '{}'",
    "DELETE FROM storeledger.events",
    "TRUNCATE storeledger.events",
  ]

  @Test func writerHasNoPrivilegeToChangeEvents() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append(Events.batch("e", 2), to: "s")
      }
      try await database.asWriter { client in
        for change in Self.changes {
          #expect(await sqlState(of: change, on: client) == "42501", "\(change)")
        }
      }
    }
  }

  @Test func triggerRejectsChangesEvenByTheSuperuser() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append(Events.batch("e", 2), to: "s")
      }
      try await database.asAdmin { client in
        for change in Self.changes {
          #expect(await sqlState(of: change, on: client) == "SL001", "\(change)")
        }
      }
      let remaining = try await database.withEventStore { store in
        try await store.readStream("s").count
      }
      #expect(remaining == 2)
    }
  }

  @Test func hashChainNamesAnEditedRow() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append(Events.batch("a", 5), to: "one")
        _ = try await store.append(Events.batch("b", 5), to: "two")
        let intact = try await store.checkHashChain()
        #expect(intact.isIntact && intact.checkedEvents == 10)
      }
      try await database.asAdmin { client in
        try await client.execute(
          "ALTER TABLE storeledger.events DISABLE TRIGGER events_reject_update_delete",
          logger: TestDatabase.logger)
        try await client.execute(
          """
          UPDATE storeledger.events SET payload = '{"key":"b-2","amount":1000}'
          WHERE stream_id = 'two' AND stream_version = 3
          """, logger: TestDatabase.logger)
      }
      try await database.withEventStore { store in
        let report = try await store.checkHashChain()
        #expect(report.checkedEvents == 10)
        #expect(report.firstMismatch?.streamId == "two")
        #expect(report.firstMismatch?.streamVersion == 3)
        #expect(report.firstMismatch?.reason == .contentChanged)
        #expect(try await store.checkHashChain(streamId: "one").isIntact)
        #expect(try await store.checkHashChain(streamId: "two").firstMismatch?.streamVersion == 3)
      }
    }
  }

  @Test func hashChainNamesTheRowAfterADeletedOne() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append(Events.batch("a", 4), to: "s")
      }
      try await database.asAdmin { client in
        try await client.execute(
          "ALTER TABLE storeledger.events DISABLE TRIGGER events_reject_update_delete",
          logger: TestDatabase.logger)
        try await client.execute(
          "DELETE FROM storeledger.events WHERE stream_version = 2", logger: TestDatabase.logger)
      }
      try await database.withEventStore { store in
        let mismatch = try await store.checkHashChain().firstMismatch
        #expect(mismatch?.streamVersion == 3)
        #expect(mismatch?.reason == .versionGap)
      }
    }
  }
}
