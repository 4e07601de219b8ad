import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Under load, pg_auto_failover 2.0 assigned a primary `wait_primary` in the middle of a
/// planned failover: the primary turned synchronous replication off and committed alone for
/// 30 s while its standby was promoted, the server went on writing to it (it still accepted
/// writes), and 175 notifications acknowledged in that window were rewound away when it
/// rejoined. An append on a URL naming several hosts is now acknowledged only once a standby
/// has it, or no other host answers (a primary alone, as the formation chose); another host
/// out of recovery is a split brain, and the write is refused with `database_unavailable`
/// (the webhook's 503: Apple sends it again, and the retry lands where the formation settles).
@Suite(.enabled(if: TestDatabase.shouldRun && TestReplica.shouldRun)) struct ReplicatedCommitTests {
  /// Given the test cluster and its streaming replica in one URL, when events are appended
  /// alone, in a batch and by a decision, then each is acknowledged: the standby has them.
  @Test func anAppendTheStandbyHoldsIsAcknowledged() async throws {
    try await TestDatabase.withMigrated { database in
      let replica = try await TestReplica.url(of: database)
      var url = database.writerURL
      url.hosts += replica.hosts
      let hosts = try DatabaseHosts.primary(url, logger: TestDatabase.logger)
      try await DatabaseHosts.withRunning(hosts) { hosts in
        let store = EventStore(hosts: hosts, logger: TestDatabase.logger)
        let single = try await store.append([Events.make("held")], to: "s:held")
        #expect(!single.wasDuplicate)
        let batch = try await store.appendBatch([
          BatchAppend(event: Events.make("held-1"), streamId: "s:held")
        ])
        #expect(batch.count == 1)
        let decided = try await store.append(to: "s:decided") { _ in [Events.make("decided")] }
        #expect(!decided.wasDuplicate)
        #expect(hosts.currentHost == database.writerURL.hosts.first?.description)
        // Appends finishing together share rounds of questions: each is answered.
        let together = try await withThrowingTaskGroup(of: Bool.self) { group in
          for item in 0..<40 {
            group.addTask {
              try await !store.append([Events.make("together-\(item)")], to: "s:\(item)")
                .wasDuplicate
            }
          }
          return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(together == 40)
      }
      #expect(try await database.eventCount() == 43)
    }
  }

  /// Given a URL naming two servers that both are out of recovery (what a formation shows
  /// while a promoted standby and a primary that was not demoted both accept writes), when an
  /// event is appended, then it is refused as `database_unavailable` naming the other host,
  /// alone, again as a retry (its row, committed on the first server, is not vouched for
  /// either), and in a batch.
  @Test(.enabled(if: TestDatabase.shouldRunOnASmallDisk))
  func aWriteWhileAnotherHostIsOutOfRecoveryIsRefused() async throws {
    let other = try #require(TestDatabase.serverURL)
    try await TestDatabase.withMigrated(on: TestDatabase.smallDiskURL) { database in
      // The same database on the other server, so its pool can ask it.
      try await PostgresClient.withRunningClient(other, logger: TestDatabase.logger) { admin in
        try await admin.query(
          PostgresQuery(unsafeSQL: "CREATE DATABASE \(database.name)"),
          logger: TestDatabase.logger)
      }
      do {
        var url = database.writerURL
        url.hosts += other.hosts
        let hosts = try DatabaseHosts.primary(url, logger: TestDatabase.logger)
        try await DatabaseHosts.withRunning(hosts) { hosts in
          let store = EventStore(hosts: hosts, logger: TestDatabase.logger)
          for attempt in 1...2 {
            let refused = await #expect(throws: EventStoreError.self) {
              try await store.append([Events.make("split")], to: "s:split")
            }
            #expect(refused?.code == .databaseUnavailable, "attempt \(attempt)")
            #expect(refused?.message.contains("out of recovery") == true)
            #expect(refused?.message.contains(other.hosts[0].description) == true)
          }
          let refusals = await withTaskGroup(of: Bool.self) { group in
            for item in 0..<20 {
              group.addTask {
                do {
                  _ = try await store.append([Events.make("split-\(item)")], to: "s:\(item)")
                  return false
                } catch {
                  return (error as? EventStoreError)?.code == .databaseUnavailable
                }
              }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
          }
          #expect(refusals == 20, "appends refused together, none acknowledged")
          let batch = await #expect(throws: EventStoreError.self) {
            try await store.appendBatch([
              BatchAppend(event: Events.make("split-batch"), streamId: "s:split")
            ])
          }
          #expect(batch?.code == .databaseUnavailable)
        }
        try await dropOther(database.name, on: other)
      } catch {
        try? await dropOther(database.name, on: other)
        throw error
      }
    }
  }

  private func dropOther(_ name: String, on server: DatabaseURL) async throws {
    try await PostgresClient.withRunningClient(server, logger: TestDatabase.logger) { admin in
      try await admin.query(
        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"),
        logger: TestDatabase.logger)
    }
  }

  @Test func walPositionsReadAsPostgreSQLWritesThem() {
    #expect(DatabaseHosts.lsn("16/B374D848") == 0x16_B374_D848)
    #expect(DatabaseHosts.lsn("0/0") == 0)
    #expect(DatabaseHosts.lsn("x/1") == nil)
    #expect(DatabaseHosts.text(0x16_B374_D848) == "16/B374D848")
  }
}
