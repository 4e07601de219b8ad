import Foundation
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing
import StoreLedgerCore

/// Group commit: single-event appends to many streams in one transaction, each behaving as
/// its own append would.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct AppendBatchTests {
  static func item(_ key: String, _ stream: String, tokens: [String] = []) -> BatchAppend {
    BatchAppend(
      event: Events.make(key), streamId: stream,
      index: tokens.isEmpty ? nil : StreamIndex(keys: tokens, streams: [stream]))
  }

  static func strings(_ query: PostgresQuery, _ database: TestDatabase) async throws -> [String] {
    try await database.asAdmin { client in
      try await client.query(query, logger: TestDatabase.logger) { rows in
        var values: [String] = []
        for try await value in rows.decode(String.self) { values.append(value) }
        return values
      }
    }
  }

  @Test func aBatchCommitsOnceAndEachItemIsItsOwnAppend() async throws {
    try await TestDatabase.withMigrated { database in
      let results = try await database.withEventStore { store in
        _ = try await store.append([Events.make("k-0")], to: "b")
        return try await store.appendBatch([
          Self.item("k-1", "b", tokens: ["acct-1"]), Self.item("k-2", "a", tokens: ["acct-2"]),
          Self.item("k-0", "b"), Self.item("k-3", "b", tokens: ["acct-1", "acct-2"]),
        ])
      }
      #expect(results.map(\.streamId) == ["b", "a", "b", "b"])
      #expect(results.map { $0.events[0].streamVersion } == [2, 1, 1, 3])
      #expect(results.map(\.wasDuplicate) == [false, false, true, false])
      let written = results.filter { !$0.wasDuplicate }
      #expect(Set(written.map { $0.events[0].position.transactionId }).count == 1)
      let report = try await database.withEventStore { try await $0.checkHashChain() }
      #expect(report.isIntact && report.checkedEvents == 4)
      let index = try await Self.strings(
        """
        SELECT app_account_token || '>' || stream_id FROM storeledger.account_streams ORDER BY 1
        """, database)
      #expect(index == ["acct-1>b", "acct-2>a", "acct-2>b"])
      let changes = try await Self.strings(
        """
        SELECT app_account_token || '=' || changes FROM storeledger.account_views ORDER BY 1
        """, database)
      // acct-2 holds "b" once k-3 indexes it: k-1, written to "b" in the same batch, is its too.
      #expect(changes == ["acct-1=2", "acct-2=3"])
    }
  }

  /// Events naming no account, written to a stream accounts hold, count for those accounts
  /// (their stored views are outdated) and say who they are; a stream no one holds counts for
  /// no one.
  @Test func aWriteNamingNoAccountCountsForTheStreamsHolders() async throws {
    try await TestDatabase.withMigrated { database in
      let (single, batch, duplicate) = try await database.withEventStore { store in
        _ = try await store.appendBatch([
          Self.item("h-0", "chain", tokens: ["acct-1", "acct-2"]),
          Self.item("h-1", "other", tokens: ["acct-3"]),
        ])
        let single = try await store.append([Events.make("h-2")], to: "chain")
        let batch = try await store.appendBatch([
          Self.item("h-3", "chain"), Self.item("h-4", "alone"), Self.item("h-5", "chain"),
        ])
        let duplicate = try await store.append([Events.make("h-2")], to: "chain")
        return (single, batch, duplicate)
      }
      #expect(single.holders.sorted() == ["acct-1", "acct-2"])
      #expect(
        batch.map { $0.holders.sorted() } == [["acct-1", "acct-2"], [], ["acct-1", "acct-2"]])
      #expect(duplicate.wasDuplicate)
      let changes = try await Self.strings(
        """
        SELECT app_account_token || '=' || changes FROM storeledger.account_views ORDER BY 1
        """, database)
      #expect(changes == ["acct-1=4", "acct-2=4", "acct-3=1"])
    }
  }

  @Test func theSameKeyTwiceInABatchIsStoredOnce() async throws {
    try await TestDatabase.withMigrated { database in
      let results = try await database.withEventStore { store in
        try await store.appendBatch([
          Self.item("twice", "s", tokens: ["acct-1"]), Self.item("twice", "s", tokens: ["acct-1"]),
        ])
      }
      #expect(results.map(\.wasDuplicate) == [false, true])
      #expect(results[0].events == results[1].events)
      let changes = try await Self.strings(
        "SELECT changes::text FROM storeledger.account_views", database)
      #expect(changes == ["1"])
    }
  }

  @Test func oneFaultyItemFailsTheWholeBatch() async throws {
    try await TestDatabase.withMigrated { database in
      let error = try await database.withEventStore { store in
        _ = try await store.append([Events.make("taken")], to: "elsewhere")
        return await #expect(throws: EventStoreError.self) {
          try await store.appendBatch([
            Self.item("fine", "s", tokens: ["acct-1"]), Self.item("taken", "t"),
          ])
        }
      }
      #expect(error?.code == .idempotencyKeyInOtherStream)
      let keys = try await Self.strings(
        "SELECT idempotency_key FROM storeledger.events ORDER BY 1", database)
      #expect(keys == ["taken"])
      #expect(
        try await Self.strings("SELECT app_account_token FROM storeledger.account_views", database)
          .isEmpty)
    }
  }

  @Test func oneKeyForTwoStreamsInABatchFailsTheBatch() async throws {
    try await TestDatabase.withMigrated { database in
      let error = try await database.withEventStore { store in
        await #expect(throws: EventStoreError.self) {
          try await store.appendBatch([
            Self.item("fine", "s"), Self.item("shared", "t"), Self.item("shared", "u"),
          ])
        }
      }
      #expect(error?.code == .idempotencyKeyInOtherStream)
      #expect(
        try await Self.strings("SELECT idempotency_key FROM storeledger.events", database)
          .isEmpty)
    }
  }

  @Test func interleavedStreamsEachChainFromTheirHeadsInItemOrder() async throws {
    try await TestDatabase.withMigrated { database in
      let results = try await database.withEventStore { store in
        _ = try await store.append(Events.batch("old-x", 2), to: "x")
        return try await store.appendBatch(
          (0..<6).map { Self.item("new-\($0)", $0.isMultiple(of: 2) ? "x" : "y") })
      }
      #expect(results.map { $0.events[0].streamVersion } == [3, 1, 4, 2, 5, 3])
      #expect(results.allSatisfy { !$0.wasDuplicate })
      let feed = try await Self.strings(
        "SELECT idempotency_key FROM storeledger.events WHERE stream_version > 0 ORDER BY seq",
        database)
      #expect(feed == ["old-x-0", "old-x-1", "new-0", "new-2", "new-4", "new-1", "new-3", "new-5"])
      let report = try await database.withEventStore { try await $0.checkHashChain() }
      #expect(report.isIntact && report.checkedEvents == 8)
    }
  }

  @Test func malformedBatchesAreRefusedBeforeTheDatabase() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        for items in [[], [Self.item("x", "")], [Self.item("", "s")]] {
          let error = await #expect(throws: EventStoreError.self) {
            try await store.appendBatch(items)
          }
          #expect(error?.code == .invalidEvent)
        }
      }
    }
  }
}
