import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres
import Testing

/// A fresh, migrated database per test on the throwaway cluster `scripts/test` starts
/// (`STORELEDGER_TEST_DATABASE_URL`). Without that variable the database tests are skipped,
/// each saying so (disabled, or a test case over both storages cancelled), except under
/// `CI=true`, where they run and fail: CI never skips them.
public struct TestDatabase: Sendable {
  /// The superuser, connected to this test's database.
  public let adminURL: DatabaseURL
  /// The engine's role, connected to this test's database.
  public let writerURL: DatabaseURL
  public let name: String

  public static let serverURL: DatabaseURL? = ProcessInfo.processInfo
    .environment["STORELEDGER_TEST_DATABASE_URL"].flatMap { try? DatabaseURL($0) }

  /// A second server whose data directory is a small disk (`scripts/test` mounts a 96 MB
  /// tmpfs when it may): the full-disk tests fill it.
  public static let smallDiskURL: DatabaseURL? = ProcessInfo.processInfo
    .environment["STORELEDGER_TEST_SMALL_DISK_URL"].flatMap { try? DatabaseURL($0) }

  /// For `.enabled(if:)` of the full-disk tests: run when the small disk is there, and always
  /// under CI (where its absence is a failure).
  public static let shouldRunOnASmallDisk =
    smallDiskURL != nil || ProcessInfo.processInfo.environment["CI"] == "true"

  /// For `.enabled(if:)`: run when a database is configured, and always under CI.
  public static let shouldRun =
    serverURL != nil || ProcessInfo.processInfo.environment["CI"] == "true"

  public static let logger: Logger = {
    var logger = Logger(label: "storeledger.tests")
    logger.logLevel =
      ProcessInfo.processInfo.environment["STORELEDGER_TEST_TRACE"] == nil ? .error : .trace
    return logger
  }()

  struct Unavailable: Error, CustomStringConvertible {
    var description: String {
      "no test database: run scripts/test, which starts one and sets STORELEDGER_TEST_DATABASE_URL"
    }
  }

  /// The server a test needs: without one, outside CI, the running test (or the test case, of
  /// a test over both storages) is skipped with the reason; under CI, it fails.
  public static func required(_ server: DatabaseURL?) throws -> DatabaseURL {
    if let server { return server }
    if ProcessInfo.processInfo.environment["CI"] == "true" { throw Unavailable() }
    try Test.cancel("needs PostgreSQL: scripts/test starts one (STORELEDGER_TEST_DATABASE_URL)")
  }

  /// Creates a database, migrates it as the superuser (to `migrations`, all by default),
  /// runs `body`, then drops it.
  public static func withMigrated<Result: Sendable>(
    to migrations: [SchemaMigration] = SchemaMigration.all, on server: DatabaseURL? = serverURL,
    _ body: @Sendable (TestDatabase) async throws -> Result
  ) async throws -> Result {
    let server = try required(server)
    let name = "sl_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    _ = try await admin(server) { client in
      try await client.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
    }
    let database = TestDatabase(
      adminURL: server.with(database: name),
      writerURL: server.with(database: name).with(username: "storeledger_writer"), name: name)
    do {
      try await database.asAdmin { client in
        _ = try await SchemaMigrator(client: client, logger: logger, migrations: migrations)
          .migrate()
      }
      let result = try await body(database)
      try await drop(name, on: server)
      return result
    } catch {
      try? await drop(name, on: server)
      throw error
    }
  }

  /// Runs `body` with a client connected as the engine's writer role.
  public func asWriter<Result: Sendable>(
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    try await PostgresClient.withRunningClient(writerURL, logger: Self.logger, body)
  }

  /// Runs `body` with a client connected as the superuser.
  /// How many events the log holds.
  public func eventCount() async throws -> Int {
    try await asAdmin { client in
      try await client.query("SELECT count(*) FROM storeledger.events", logger: Self.logger) {
        rows in
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
      }
    }
  }

  public func asAdmin<Result: Sendable>(
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    try await PostgresClient.withRunningClient(adminURL, logger: Self.logger, body)
  }

  /// An event store used as the writer role.
  public func withEventStore<Result: Sendable>(
    _ body: @Sendable (EventStore) async throws -> Result
  ) async throws -> Result {
    try await asWriter { client in try await body(EventStore(client: client, logger: Self.logger)) }
  }

  private static func admin<Result: Sendable>(
    _ server: DatabaseURL, _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    try await PostgresClient.withRunningClient(server, logger: logger, body)
  }

  private static func drop(_ name: String, on server: DatabaseURL) async throws {
    _ = try await admin(server) { client in
      try await client.execute(
        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
    }
  }
}
