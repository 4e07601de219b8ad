import Foundation
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing
import StoreLedgerCore

@Suite(.enabled(if: TestDatabase.shouldRun)) struct FeedTests {
  /// Writers on many streams while one transaction holds its events uncommitted for seconds:
  /// the feed delivers every committed event exactly once, in per-stream order, the late one too.
  @Test func lateCommitIsDeliveredNeverSkippedNeverTwice() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let consumer = Task {
          var delivered: [RecordedEvent] = []
          for try await event in store.feed(batchSize: 7, pollInterval: .milliseconds(20)) {
            delivered.append(event)
            if delivered.count == 8 * 25 + 3 { break }
          }
          return delivered
        }
        // Fails the test (instead of hanging it) if an event never arrives.
        let watchdog = Task {
          try await Task.sleep(for: .seconds(90))
          consumer.cancel()
        }
        defer { watchdog.cancel() }
        let late = Task {
          try await store.append(Events.batch("late", 3), to: "slow") { _, _ in
            try await Task.sleep(for: .seconds(2))
          }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
          for writer in 0..<8 {
            group.addTask {
              for round in 0..<25 {
                _ = try await store.append(
                  [Events.make("w\(writer)-\(round)")], to: "stream-\(writer % 4)")
              }
            }
          }
          try await group.waitForAll()
        }
        let lateResult = try await late.value
        let delivered = try await consumer.value
        #expect(delivered.count == 203)
        #expect(Set(delivered.map(\.eventId)).count == 203, "nothing twice")
        #expect(delivered.map(\.position) == delivered.map(\.position).sorted())
        #expect(Set(lateResult.events.map(\.eventId)).isSubset(of: Set(delivered.map(\.eventId))))
        for stream in Set(delivered.map(\.streamId)) {
          let versions = delivered.filter { $0.streamId == stream }.map(\.streamVersion)
          #expect(versions == Array(1...Int64(versions.count)), "\(stream) in order")
        }
      }
    }
  }

  @Test func feedStopsBelowTheOldestRunningTransaction() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append([Events.make("before")], to: "a")
        let (inserted, insertedSignal) = AsyncStream<Void>.makeStream()
        let (released, releaseSignal) = AsyncStream<Void>.makeStream()
        let holding = Task {
          try await store.append([Events.make("held")], to: "b") { _, _ in
            insertedSignal.yield()
            for await _ in released { break }
          }
        }
        for await _ in inserted { break }
        _ = try await store.append([Events.make("after")], to: "c")
        // "after" committed, but a transaction that began writing before it is still open:
        // the fence keeps "after" back. (Other tests' transactions on the same cluster may hold
        // the fence lower still; xids are cluster-wide.)
        let early = try await store.readFeed(after: .beginning).map(\.idempotencyKey)
        #expect(!early.contains("after") && !early.contains("held"))
        releaseSignal.yield()
        _ = try await holding.value
        let all = try await Self.readFeedUntil(count: 3, from: store)
        #expect(all.map(\.idempotencyKey) == ["before", "held", "after"])
        let rest = try await store.readFeed(after: all[0].position)
        #expect(rest.map(\.idempotencyKey) == ["held", "after"])
      }
    }
  }

  /// Reads the feed from the beginning until it holds `count` events (or 30 s pass).
  static func readFeedUntil(count: Int, from store: EventStore) async throws -> [RecordedEvent] {
    let deadline = ContinuousClock.now + .seconds(30)
    var events: [RecordedEvent] = []
    while events.count < count, ContinuousClock.now < deadline {
      events = try await store.readFeed(after: .beginning)
      if events.count < count { try await Task.sleep(for: .milliseconds(50)) }
    }
    return events
  }

  @Test func notificationFromAnotherStoreWakesTheFeed() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let signal = WakeUpSignal()
        let reader = EventStore(client: client, logger: TestDatabase.logger)
        let writer = EventStore(
          client: client, logger: TestDatabase.logger, notifiesListeners: true)
        let listener = Task { try await reader.listenForAppends(signalling: signal) }
        defer { listener.cancel() }
        // The listener signals once when it starts listening.
        #expect(await signal.wait(after: 0, timeout: .seconds(20)))
        let received = try await Self.firstFeedEvent(of: reader, wakeUp: signal) {
          _ = try await writer.append([Events.make("ping")], to: "s")
        }
        #expect(received == "ping")
      }
    }
  }

  @Test func appendWakesFeedsOfTheSameProcess() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let signal = WakeUpSignal()
        let store = EventStore(client: client, logger: TestDatabase.logger, wakeUp: signal)
        let received = try await Self.firstFeedEvent(of: store, wakeUp: signal) {
          _ = try await store.append([Events.make("local")], to: "s")
        }
        #expect(received == "local")
      }
    }
  }

  /// Starts a feed that polls only once a minute, runs `append`, and returns the key of the
  /// first event the feed delivers, or "timed out" after 20 s: only a wake-up makes it in time.
  private static func firstFeedEvent(
    of store: EventStore, wakeUp signal: WakeUpSignal,
    after append: @Sendable () async throws -> Void
  ) async throws -> String? {
    let consumer = Task { () -> String? in
      for try await event in store.feed(pollInterval: .seconds(60), wakeUp: signal) {
        return event.idempotencyKey
      }
      return nil
    }
    // The append comes once the feed has read everything and waits: only a wake-up ends that.
    while signal.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
    try await append()
    return try await withThrowingTaskGroup(of: String?.self) { group in
      group.addTask { try await consumer.value }
      group.addTask {
        try await Task.sleep(for: .seconds(20))
        consumer.cancel()
        return "timed out"
      }
      let first = try await group.next()!
      group.cancelAll()
      return first
    }
  }
}
