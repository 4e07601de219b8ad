import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerMemory
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Where a test's ledger keeps its log: a fresh migrated PostgreSQL database, or memory. Tests
/// that take both as arguments hold the two implementations of the ports to one behaviour.
enum StorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case postgres, memory

  var testDescription: String { rawValue }

  func withStorage(_ body: @Sendable (LedgerStorage) async throws -> Void) async throws {
    let logger = TestDatabase.logger
    switch self {
    case .memory:
      let memory = InMemoryLedgerStorage()
      try await body(
        LedgerStorage(memory, logger: logger, timeout: .seconds(30)))
    case .postgres:
      try await TestDatabase.withMigrated { database in
        try await database.asWriter { client in
          try await body(
            LedgerStorage(
              PostgresLedgerDatabase(client: client, logger: logger, timeout: .seconds(30)),
              logger: logger))
        }
      }
    }
  }

  /// Storage as the server's role sees it, and a second view of the same storage as the
  /// database's owner (who alone may erase); in memory, one storage for both.
  func withOwner(
    _ body: @Sendable (_ storage: LedgerStorage, _ owner: LedgerStorage) async throws -> Void
  ) async throws {
    let logger = TestDatabase.logger
    switch self {
    case .memory:
      let storage = LedgerStorage(InMemoryLedgerStorage(), logger: logger, timeout: .seconds(30))
      try await body(storage, storage)
    case .postgres:
      try await TestDatabase.withMigrated { database in
        try await database.asWriter { writer in
          try await database.asAdmin { admin in
            try await body(
              LedgerStorage(
                PostgresLedgerDatabase(client: writer, logger: logger, timeout: .seconds(30)),
                logger: logger),
              LedgerStorage(
                PostgresLedgerDatabase(client: admin, logger: logger, timeout: .seconds(30)),
                logger: logger))
          }
        }
      }
    }
  }

  func withLedger(
    _ configuration: LedgerConfiguration, _ body: @Sendable (Ledger) async throws -> Void
  ) async throws {
    try await withStorage { storage in
      try await body(try Ledger(storage: storage, configuration: configuration))
    }
  }
}
