import Logging
import PostgresNIO

extension PostgresClient {
  /// Runs `query` on a connection leased for exactly as long as `read` takes, handing `read`
  /// all its rows (see ``StatementRows``).
  ///
  /// Deliberately not `PostgresClient.query(_:logger:)`: in PostgresNIO 1.33 a statement that
  /// fails after its row description arrived but before the caller began reading (an exception
  /// raised inside a function, a version conflict) never hands its connection back. Each such
  /// failure shrinks the pool by one, and the pool's shutdown then waits forever.
  package func query<Result: Sendable>(
    _ query: PostgresQuery, logger: Logger,
    reading read: @escaping @Sendable (StatementRows) async throws -> Result
  ) async throws -> Result {
    try await withConnection { connection in
      try await connection.query(query, logger: logger, reading: read)
    }
  }

  /// Runs `query` and returns how many rows it produced.
  @discardableResult
  package func execute(_ query: PostgresQuery, logger: Logger) async throws -> Int {
    try await self.query(query, logger: logger, reading: PostgresConnection.count)
  }

  /// Runs `body` inside `begin` (`BEGIN` unless told) … `COMMIT` on one leased connection;
  /// when `body` throws, rolls back and rethrows `body`'s error unchanged. Unlike PostgresNIO's
  /// `withTransaction`, it never waits forever on a connection the server has closed (the
  /// server has then rolled the transaction back itself).
  package func inTransaction<Result: Sendable>(
    logger: Logger, begin: PostgresQuery = "BEGIN",
    _ body: (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    try await withConnection { connection in
      try await connection.execute(begin, logger: logger)
      let result: Result
      do {
        result = try await body(connection)
      } catch {
        _ = try? await connection.execute("ROLLBACK", logger: logger)
        throw error
      }
      try await connection.execute("COMMIT", logger: logger)
      return result
    }
  }
}
