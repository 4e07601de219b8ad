import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerPostgres

/// The ways PostgresNIO 1.33 can wait forever, each turned into a prompt answer.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConnectionFailureTests {
  /// Statements that fail after their row description (here: version conflicts raised inside
  /// `append_events`) hand their connection back: a pool of two serves 400 of them from four tasks and then
  /// a good append, and shuts down.
  @Test func failedStatementsKeepThePoolWhole() async throws {
    try await TestDatabase.withMigrated { database in
      var configuration = database.writerURL.clientConfiguration
      configuration.options.maximumConnections = 2
      let smallPool = configuration
      try await withTimeout(.seconds(60)) {
        try await PostgresClient.withRunningClient(smallPool, logger: TestDatabase.logger) {
          client in
          let store = EventStore(client: client, logger: TestDatabase.logger)
          _ = try await store.append([Events.make("first")], to: "s")
          try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
              group.addTask {
                for attempt in 0..<100 {
                  await #expect(throws: EventStoreError.self) {
                    _ = try await store.append(
                      [Events.make("conflict-\(task)-\(attempt)")], to: "s", expected: .exact(7))
                  }
                }
              }
            }
            try await group.waitForAll()
          }
          let last = try await store.append([Events.make("last")], to: "s")
          #expect(last.lastVersion == 2)
        }
      }
    }
  }

  /// A statement sent on a connection the server has already closed fails at once.
  @Test func statementOnAClosedConnectionFails() async throws {
    try await TestDatabase.withMigrated { database in
      try await withTimeout(.seconds(60)) {
        try await database.asWriter { client in
          try await client.withConnection { connection in
            let pid = try await connection.query(
              "SELECT pg_backend_pid()", logger: TestDatabase.logger
            ) { rows in
              var pid: Int32 = 0
              for try await (value) in rows.decode(Int32.self) { pid = value }
              return pid
            }
            _ = try await database.asAdmin { admin in
              try await admin.execute(
                "SELECT pg_terminate_backend(\(pid), 10000)", logger: TestDatabase.logger)
            }
            try await connection.closeFuture.get()
            await #expect(throws: ConnectionClosedError.self) {
              try await connection.execute("SELECT 1", logger: TestDatabase.logger)
            }
          }
        }
      }
    }
  }

  /// A statement running when the server ends the session fails, and statements that
  /// finished leave nothing watching their connection.
  @Test func statementRunningWhenTheConnectionClosesFails() async throws {
    try await TestDatabase.withMigrated { database in
      try await withTimeout(.seconds(60)) {
        try await database.asWriter { client in
          try await client.withConnection { connection in
            var pid: Int32 = 0
            for _ in 0..<100 {
              pid = try await connection.query(
                "SELECT pg_backend_pid()", logger: TestDatabase.logger
              ) {
                rows in
                var pid: Int32 = 0
                for try await (value) in rows.decode(Int32.self) { pid = value }
                return pid
              }
            }
            #expect(ConnectionCloseWatch.shared.waiterCount(on: connection) == 0)
            let backend = pid
            async let killed: Void = {
              // Once the backend is inside pg_sleep (not after a guessed delay), end it.
              try await Self.waitUntilRunning("pg_sleep", backend: backend, database)
              _ = try await database.asAdmin { admin in
                try await admin.execute(
                  "SELECT pg_terminate_backend(\(backend), 10000)", logger: TestDatabase.logger)
              }
            }()
            await #expect(throws: (any Error).self) {
              try await connection.execute("SELECT pg_sleep(30)", logger: TestDatabase.logger)
            }
            try await killed
          }
        }
      }
    }
  }

  /// A host that refuses writes as read-only (a primary being demoted in a planned failover)
  /// answers "unavailable" with SQLSTATE 25006: nothing was stored, and the caller (a webhook's
  /// 503, a replay's wait) tries again on the new primary rather than taking it as a refusal
  /// of the item. A replay stopped on "database_rejected" mid-failover before this held.
  @Test func aWriteRefusedAsReadOnlyIsUnavailable() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asAdmin { admin in
        try await admin.execute(
          PostgresQuery(
            unsafeSQL: "ALTER DATABASE \(database.name) SET default_transaction_read_only = on"),
          logger: TestDatabase.logger)
      }
      let error = try await database.withEventStore { store in
        await #expect(throws: EventStoreError.self) {
          _ = try await store.append([Events.make("refused")], to: "s")
        }
      }
      #expect(error?.code == .databaseUnavailable)
      #expect(error?.sqlState == "25006")
      #expect(error.map(DatabaseHosts.refusedAsReadOnly) == true)
      #expect(error.map(DatabaseHosts.losesHost) == true)
      #expect(try await database.eventCount() == 0)
    }
  }

  /// Waits until the backend `pid` runs a statement containing `text` (pg_stat_activity).
  static func waitUntilRunning(_ text: String, backend pid: Int32, _ database: TestDatabase)
    async throws
  {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let running = try await database.asAdmin { admin in
        try await admin.query(
          """
          SELECT count(*) FROM pg_stat_activity
          WHERE pid = \(pid) AND state = 'active' AND position(\(text) in query) > 0
          """, logger: TestDatabase.logger
        ) { rows in
          var count: Int64 = 0
          for try await value in rows.decode(Int64.self) { count = value }
          return count
        }
      }
      if running > 0 { return }
      try await Task.sleep(for: .milliseconds(10))
    }
  }
}
