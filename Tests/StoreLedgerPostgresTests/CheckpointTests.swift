import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing
import StoreLedgerCore

@Suite(.enabled(if: TestDatabase.shouldRun)) struct CheckpointTests {
  @Test func checkpointsMoveByCompareAndSwap() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let positions = try await store.append(Events.batch("c", 3), to: "s").events.map(\.position)
        #expect(try await store.checkpoint("projector") == nil)
        try await store.moveCheckpoint("projector", from: nil, to: positions[0])
        #expect(try await store.checkpoint("projector") == positions[0])
        try await store.moveCheckpoint("projector", from: positions[0], to: positions[2])
        #expect(try await store.checkpoint("projector") == positions[2])

        let stale = await #expect(throws: EventStoreError.self) {
          try await store.moveCheckpoint("projector", from: positions[0], to: positions[1])
        }
        #expect(stale?.code == .checkpointConflict)
        let created = await #expect(throws: EventStoreError.self) {
          try await store.moveCheckpoint("projector", from: nil, to: positions[1])
        }
        #expect(created?.code == .checkpointConflict)
        #expect(try await store.checkpoint("projector") == positions[2])
      }
    }
  }

  @Test func concurrentMovesFromTheSamePlaceLetOneWin() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        let positions = try await store.append(Events.batch("c", 9), to: "s").events.map(\.position)
        try await store.moveCheckpoint("p", from: nil, to: positions[0])
        let winners = await withTaskGroup(of: Bool.self) { group in
          for index in 1..<9 {
            group.addTask {
              (try? await store.moveCheckpoint("p", from: positions[0], to: positions[index]))
                != nil
            }
          }
          return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
      }
    }
  }
}
