import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres

/// A private, migrated database for one benchmark run; `setupSQL` runs after the migrations
/// as the superuser (a plain table to compare with, settings).
public struct BenchmarkDatabase: Sendable {
  public let server: DatabaseURL
  public let name: String
  public let logger: Logger

  public static func create(
    on server: DatabaseURL, setupSQL: [String], logger: Logger
  ) async throws -> BenchmarkDatabase {
    let name = "sl_bench_\(UInt32.random(in: 0...UInt32.max))"
    _ = try await PostgresClient.withRunningClient(server, logger: logger) { client in
      try await client.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
    }
    try await PostgresClient.withRunningClient(server.with(database: name), logger: logger) {
      client in
      _ = try await SchemaMigrator(client: client, logger: logger).migrate()
      for statement in setupSQL {
        try await client.execute(PostgresQuery(unsafeSQL: statement), logger: logger)
      }
    }
    return BenchmarkDatabase(server: server, name: name, logger: logger)
  }

  /// The engine's role on this database.
  public var writerURL: DatabaseURL {
    server.with(database: name).with(username: "storeledger_writer")
  }

  /// A client as the engine's role, with a pool large enough for every appender at once.
  public func withWriter<Result: Sendable>(
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    var configuration = writerURL.clientConfiguration
    configuration.options.maximumConnections = 40
    configuration.options.minimumConnections = 0
    return try await PostgresClient.withRunningClient(configuration, logger: logger, body)
  }

  public func drop() async throws {
    _ = try await PostgresClient.withRunningClient(server, logger: logger) { client in
      try await client.execute(
        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
    }
  }
}
