import Logging
import PostgresNIO
import StoreLedgerPostgres

// The few statement helpers the benchmarks use, over PostgresNIO's public API (the library's
// own are internal to its package).

extension PostgresClient {
  /// Runs `body` with a client for `url` whose pool runs for exactly as long.
  public static func withRunningClient<Result: Sendable>(
    _ url: DatabaseURL, logger: Logger,
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    try await withRunningClient(url.clientConfiguration, logger: logger, body)
  }

  /// The same with a configuration of the caller's.
  public static func withRunningClient<Result: Sendable>(
    _ configuration: PostgresClient.Configuration, logger: Logger,
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    return try await withThrowingTaskGroup(of: Result?.self) { group in
      group.addTask {
        await client.run()
        return nil
      }
      defer { group.cancelAll() }
      return try await body(client)
    }
  }

  /// Runs `query` on one leased connection and hands its rows to `read`, which reads them to
  /// the end.
  public func query<Result: Sendable>(
    _ query: PostgresQuery, logger: Logger,
    reading read: @escaping @Sendable (PostgresRowSequence) async throws -> Result
  ) async throws -> Result {
    try await withConnection { connection in
      try await read(try await connection.query(query, logger: logger))
    }
  }

  /// Runs `query`; returns how many rows it produced.
  @discardableResult
  public func execute(_ query: PostgresQuery, logger: Logger) async throws -> Int {
    try await self.query(query, logger: logger) { rows in
      var count = 0
      for try await _ in rows { count += 1 }
      return count
    }
  }
}
