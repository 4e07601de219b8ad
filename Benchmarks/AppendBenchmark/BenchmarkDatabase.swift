import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres

/// A private, migrated database for one benchmark run, with the plain table beside the log.
struct BenchmarkDatabase {
  let server: DatabaseURL
  let name: String
  let logger: Logger

  static func create(
    on server: DatabaseURL, setupSQL: String?, logger: Logger
  ) async throws -> BenchmarkDatabase {
    let name = "sl_bench_\(UInt32.random(in: 0...UInt32.max))"
    _ = try await PostgresClient.withRunningClient(server, logger: logger) { client in
      try await client.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
    }
    try await PostgresClient.withRunningClient(server.with(database: name), logger: logger) {
      client in
      _ = try await SchemaMigrator(client: client, logger: logger).migrate()
      try await client.execute(PlainInsert.createTable, logger: logger)
      try await client.execute(
        "GRANT SELECT, INSERT ON public.plain_events TO storeledger_writer", logger: logger)
      if let setupSQL {
        try await client.execute(PostgresQuery(unsafeSQL: setupSQL), logger: logger)
      }
    }
    return BenchmarkDatabase(server: server, name: name, logger: logger)
  }

  /// A client as the engine's role, with a pool large enough for every appender at once.
  func withWriter<Result: Sendable>(
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    var configuration = server.with(database: name).with(username: "storeledger_writer")
      .clientConfiguration
    configuration.options.maximumConnections = 40
    configuration.options.minimumConnections = 0
    return try await PostgresClient.withRunningClient(configuration, logger: logger, body)
  }

  func drop() async throws {
    _ = try await PostgresClient.withRunningClient(server, logger: logger) { client in
      try await client.execute(
        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
    }
  }
}
