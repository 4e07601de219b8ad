import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing
import StoreLedgerCore

@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConcurrencyTests {
  @Test func concurrentAppendersToOneStreamGetGaplessVersions() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let perTask = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
          for task in 0..<32 {
            group.addTask {
              for round in 0..<perTask {
                _ = try await store.append([Events.make("t\(task)-\(round)")], to: "hot")
              }
            }
          }
          try await group.waitForAll()
        }
        var events: [RecordedEvent] = []
        for try await event in store.stream("hot") { events.append(event) }
        #expect(events.map(\.streamVersion) == Array(1...Int64(32 * perTask)))
        #expect(Set(events.map(\.idempotencyKey)).count == 32 * perTask)
        let positions = events.map(\.position)
        #expect(positions == positions.sorted(), "feed order agrees with version order")
        #expect(try await store.checkHashChain(streamId: "hot").isIntact)
      }
    }
  }

  @Test func exactlyOneOfManySameVersionAppendersWins() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append([Events.make("base")], to: "race")
        let outcomes = await withTaskGroup(of: EventStoreError.Code?.self) { group in
          for task in 0..<32 {
            group.addTask {
              do {
                _ = try await store.append(
                  [Events.make("racer-\(task)")], to: "race", expected: .exact(1))
                return nil
              } catch {
                return (error as? EventStoreError)?.code
              }
            }
          }
          return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.filter { $0 == .wrongExpectedVersion }.count == 31)
        #expect(try await store.readStream("race").count == 2)
      }
    }
  }

  @Test func duplicateStormStoresEachKeyOnceAndAnswersEveryoneAlike() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let keys = (0..<1000).map { "storm-\($0)" }
        let answers = try await withThrowingTaskGroup(of: [String: AppendResult.Event].self) {
          group in
          for task in 0..<16 {
            group.addTask {
              var seen: [String: AppendResult.Event] = [:]
              // Every task sends the keys in its own order and batch sizes.
              let order = task.isMultiple(of: 2) ? keys : keys.reversed()
              let size = [1, 7, 50, 100][task % 4]
              for start in stride(from: 0, to: order.count, by: size) {
                let batch = order[start..<min(start + size, order.count)].map { Events.make($0) }
                let result = try await store.append(batch, to: "storm")
                for event in result.events { seen[event.idempotencyKey] = event }
              }
              return seen
            }
          }
          return try await group.reduce(into: []) { $0.append($1) }
        }
        var events: [RecordedEvent] = []
        for try await event in store.stream("storm") { events.append(event) }
        #expect(events.count == 1000)
        #expect(events.map(\.streamVersion) == Array(1...1000))
        let stored = Dictionary(uniqueKeysWithValues: events.map { ($0.idempotencyKey, $0) })
        for answer in answers {
          #expect(answer.count == 1000)
          for (key, event) in answer {
            #expect(event.streamVersion == stored[key]?.streamVersion)
            #expect(event.position == stored[key]?.position)
            #expect(event.eventId == stored[key]?.eventId)
          }
        }
      }
    }
  }
}
