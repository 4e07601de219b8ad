import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@Suite(.enabled(if: TestDatabase.shouldRun)) struct AppendTests {
  @Test func appendedEventsReadBackWithGaplessVersions() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let first = try await store.append(Events.batch("a", 3), to: "sub:Sandbox:1")
        #expect(first.events.map(\.streamVersion) == [1, 2, 3])
        #expect(!first.wasDuplicate)
        let second = try await store.append([Events.make("b")], to: "sub:Sandbox:1")
        #expect(second.events.map(\.streamVersion) == [4])
        #expect(second.events[0].position > first.events[2].position)
        let events = try await store.readStream("sub:Sandbox:1")
        #expect(events.map(\.streamVersion) == [1, 2, 3, 4])
        #expect(events.map(\.idempotencyKey) == ["a-0", "a-1", "a-2", "b"])
        let event = events[0]
        #expect(event.eventType == "test.happened.v1")
        #expect(event.environment == "Sandbox")
        #expect(event.rawSigned == "h.p.s")
        #expect(event.eventId == Events.make("a-0").eventId)
        #expect(
          event.appleSignedAt.map { ($0.timeIntervalSince1970 * 1000).rounded() }
            == 1_748_736_000_123)
        let payload = try JSONSerialization.jsonObject(with: Data(event.payload)) as? [String: Any]
        #expect(payload?["key"] as? String == "a-0")
        #expect(event.previousHash == [UInt8](repeating: 0, count: 32))
        #expect(events[1].previousHash == event.hash)
      }
    }
  }

  @Test func retriedAppendReturnsTheOriginalPositions() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let original = try await store.append(
          Events.batch("k", 2), to: "s", expected: .noStream)
        let retry = try await store.append(Events.batch("k", 2), to: "s", expected: .noStream)
        #expect(retry.wasDuplicate)
        #expect(retry.events == original.events)
        #expect(try await store.readStream("s").count == 2)
      }
    }
  }

  /// A webhook retried after a failover once found its notification "already stored" on a
  /// primary about to be demoted, where the first attempt had committed without reaching the
  /// standby, and answered 200 for a row the rewound node then lost. An answer that every event
  /// was stored before now commits WAL of its own, so it waits for synchronous replication
  /// like a first write. Given a standby that never answers (synchronous_standby_names names
  /// none that is connected), when an event is appended again, alone or in a batch, then the
  /// commit waits for the standby (seen in pg_stat_activity, polled, never slept on), and
  /// answers once replication is no longer required.
  @Test func anAppendStoredBeforeWaitsForTheStandbyLikeAFirstWrite() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append([Events.make("durable")], to: "sub:Sandbox:durable")
        try await database.asAdmin { admin in
          // Whether a commit waits is decided by the checkpointer's copy of the setting, which
          // it takes up after the reload at its own pace: wait until a new session sees the
          // value (the postmaster reloaded and signalled every process), then make the
          // checkpointer go round its loop, where it takes up a pending reload first.
          func setting(_ statement: String) async throws {
            try await admin.query(PostgresQuery(unsafeSQL: statement), logger: TestDatabase.logger)
            try await admin.query("SELECT pg_reload_conf()", logger: TestDatabase.logger)
            let wanted = statement.contains("RESET") ? "" : "storeledger_absent_standby"
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
              let seen = try await database.asAdmin { fresh in
                try await fresh.query(
                  "SELECT setting FROM pg_settings WHERE name = 'synchronous_standby_names'",
                  logger: TestDatabase.logger
                ) { rows in
                  var value = ""
                  for try await text in rows.decode(String.self) { value = text }
                  return value
                }
              }
              if seen == wanted { break }
              try await Task.sleep(for: .milliseconds(20))
            }
            try await admin.query("CHECKPOINT", logger: TestDatabase.logger)
          }
          func waitingForStandby() async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
              let rows = try await admin.query(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
                logger: TestDatabase.logger)
              for try await count in rows.decode(Int64.self) where count > 0 { return true }
              try await Task.sleep(for: .milliseconds(20))
            }
            return false
          }
          try await setting(
            "ALTER SYSTEM SET synchronous_standby_names = 'storeledger_absent_standby'")
          do {
            let single = Task {
              try await store.append([Events.make("durable")], to: "sub:Sandbox:durable")
            }
            #expect(try await waitingForStandby(), "an answer of 'stored before' waits")
            try await setting("ALTER SYSTEM RESET synchronous_standby_names")
            #expect(try await single.value.wasDuplicate)
            try await setting(
              "ALTER SYSTEM SET synchronous_standby_names = 'storeledger_absent_standby'")
            let batch = Task {
              try await store.appendBatch([
                BatchAppend(event: Events.make("durable"), streamId: "sub:Sandbox:durable")
              ])
            }
            #expect(try await waitingForStandby(), "a batch stored before waits too")
            try await setting("ALTER SYSTEM RESET synchronous_standby_names")
            #expect(try await batch.value.first?.wasDuplicate == true)
          } catch {
            try await setting("ALTER SYSTEM RESET synchronous_standby_names")
            throw error
          }
        }
      }
    }
  }

  @Test func partlyStoredBatchAppendsOnlyTheNewEvents() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let first = try await store.append([Events.make("x")], to: "s")
        let mixed = try await store.append([Events.make("x"), Events.make("y")], to: "s")
        #expect(!mixed.wasDuplicate)
        #expect(mixed.events[0] == first.events[0])
        #expect(mixed.events[1].streamVersion == 2)
        #expect(try await store.readStream("s").map(\.idempotencyKey) == ["x", "y"])
      }
    }
  }

  @Test func expectedVersionIsChecked() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append([Events.make("1")], to: "s", expected: .noStream)
        let noStream = await #expect(throws: EventStoreError.self) {
          try await store.append([Events.make("2")], to: "s", expected: .noStream)
        }
        #expect(noStream?.code == .wrongExpectedVersion)
        let stale = await #expect(throws: EventStoreError.self) {
          try await store.append([Events.make("2")], to: "s", expected: .exact(5))
        }
        #expect(stale?.code == .wrongExpectedVersion)
        let next = try await store.append([Events.make("2")], to: "s", expected: .exact(1))
        #expect(next.lastVersion == 2)
      }
    }
  }

  @Test func keyUsedInAnotherStreamIsRefused() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append([Events.make("shared")], to: "one")
        let error = await #expect(throws: EventStoreError.self) {
          try await store.append([Events.make("shared")], to: "two")
        }
        #expect(error?.code == .idempotencyKeyInOtherStream)
        let remaining = try await store.readStream("two")
        #expect(remaining.isEmpty)
      }
    }
  }

  @Test(arguments: [
    Events.make("bad-json", payload: "{not json"),
    Events.make("bad-type", type: "no version"),
    NewEvent(
      eventType: "x.v1", idempotencyKey: "bad-meta", payload: Array("{}".utf8),
      metadata: Array("[".utf8)),
  ])
  func invalidEventAppendsNothing(bad: NewEvent) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let error = await #expect(throws: EventStoreError.self) {
          try await store.append([Events.make("good"), bad], to: "s")
        }
        #expect(error?.code == .invalidEvent)
        let remaining = try await store.readStream("s")
        #expect(remaining.isEmpty)
      }
    }
  }

  @Test func malformedBatchesAreRefusedBeforeTheDatabase() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        for (events, stream) in [
          ([Events.make("d"), Events.make("d")], "s"), ([], "s"), ([Events.make("e")], ""),
        ] {
          let error = await #expect(throws: EventStoreError.self) {
            try await store.append(events, to: stream)
          }
          #expect(error?.code == .invalidEvent)
        }
      }
    }
  }

  @Test func hookRunsInsideTheAppendTransaction() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let seen = try await store.append(Events.batch("h", 2), to: "s") { connection, result in
          let count = try await connection.query(
            "SELECT count(*) FROM storeledger.events WHERE stream_id = \(result.streamId)",
            logger: TestDatabase.logger
          ) { rows in
            var count = 0
            for try await (value) in rows.decode(Int.self) { count = value }
            return count
          }
          #expect(count == 2)
        }
        #expect(seen.events.count == 2)
      }
    }
  }

  @Test func failingHookRollsTheAppendBack() async throws {
    struct Refused: Error {}
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let error = await #expect(throws: EventStoreError.self) {
          try await store.append(Events.batch("h", 3), to: "s") { _, _ in throw Refused() }
        }
        #expect(error?.code == .hookFailed)
        #expect(error?.underlying is Refused)
        let remaining = try await store.readStream("s")
        #expect(remaining.isEmpty)
      }
    }
  }

  /// The account index is written by the append's own statement: with the events, once, and
  /// not at all when the append is refused.
  @Test func indexEntriesComeWithTheAppendOnly() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let index = StreamIndex(keys: ["acct-1", "acct-2"], streams: ["s", "t"])
        _ = try await store.append([Events.make("i-1")], to: "s", indexing: index)
        _ = try await store.append([Events.make("i-1")], to: "s", indexing: index)
        await #expect(throws: EventStoreError.self) {
          _ = try await store.append(
            [Events.make("i-2")], to: "s", expected: .exact(9),
            indexing: StreamIndex(keys: ["acct-3"], streams: ["s"]))
        }
      }
      let entries = try await database.asAdmin { client in
        try await client.query(
          """
          SELECT app_account_token || '>' || stream_id FROM storeledger.account_streams
          ORDER BY 1
          """, logger: TestDatabase.logger
        ) { rows in
          var entries: [String] = []
          for try await (entry) in rows.decode(String.self) { entries.append(entry) }
          return entries
        }
      }
      #expect(entries == ["acct-1>s", "acct-1>t", "acct-2>s", "acct-2>t"])
    }
  }

  @Test func connectionLostMidAppendLeavesNoPartialBatch() async throws {
    try await TestDatabase.withMigrated { database in
      let error = try await database.withEventStore { store in
        await #expect(throws: EventStoreError.self) {
          try await store.append(Events.batch("lost", 50), to: "s") { connection, _ in
            // The server ends this session after the insert, before the commit.
            try await connection.execute(
              "SELECT pg_terminate_backend(pg_backend_pid())", logger: TestDatabase.logger)
          }
        }
      }
      #expect(error?.code == .hookFailed || error?.code == .databaseUnavailable)
      let remaining = try await database.withEventStore { store in
        try await store.readStream("s").count
      }
      #expect(remaining == 0)
    }
  }

  @Test func streamSequenceReadsPageByPage() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append(Events.batch("p", 10), to: "s")
        var versions: [Int64] = []
        for try await event in store.stream("s", pageSize: 3) {
          versions.append(event.streamVersion)
        }
        #expect(versions == Array(1...10))
        var fromFour: [Int64] = []
        for try await event in store.stream("s", from: 4, pageSize: 5) {
          fromFour.append(event.streamVersion)
        }
        #expect(fromFour == Array(4...10))
      }
    }
  }
}
