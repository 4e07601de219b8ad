import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The connection ended before the statement's answer arrived.
public struct ConnectionClosedError: Error, CustomStringConvertible {
  public var description: String { "the database connection closed" }
}

extension PostgresConnection {
  /// Runs `query`, receives all its rows (see ``StatementRows``) and hands them to `read`;
  /// fails with ``ConnectionClosedError`` when the connection is or becomes closed first.
  ///
  /// Why not plain `query(_:logger:)`: PostgresNIO 1.33 writes a statement to a connection
  /// that has already closed without ever failing it, so the caller waits forever. That
  /// happens whenever the server ends a session between two statements (a restart, an
  /// administrator's `pg_terminate_backend`, a FATAL during the previous statement), for
  /// example for the `ROLLBACK` after a failed statement in a transaction.
  package func query<Result: Sendable>(
    _ query: PostgresQuery, logger: Logger,
    reading read: @escaping @Sendable (StatementRows) async throws -> Result
  ) async throws -> Result {
    try await failingOnClose { connection in
      // The EventLoopFuture form collects the rows; the async form would stream them.
      let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
      return try await read(StatementRows(try await result.get().rows))
    }
  }

  /// Runs `body`, which sends statements on this connection and reads their rows to the end,
  /// failing with ``ConnectionClosedError`` when the connection is or becomes closed first
  /// (see ``query(_:logger:reading:)``).
  package func failingOnClose<Result: Sendable>(
    _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    guard !isClosed else { throw ConnectionClosedError() }
    return try await withCheckedThrowingContinuation { continuation in
      let outcome = FirstOutcome(continuation)
      let watch = ConnectionCloseWatch.shared.watch(self) {
        outcome.resume(with: .failure(ConnectionClosedError()))
      }
      Task {
        let result: Swift.Result<Result, any Error>
        do {
          result = .success(try await body(self))
        } catch {
          result = .failure(error)
        }
        ConnectionCloseWatch.shared.stop(watch, on: self)
        outcome.resume(with: result)
      }
    }
  }

  /// Runs `query` and returns how many rows it produced.
  @discardableResult
  package func execute(_ query: PostgresQuery, logger: Logger) async throws -> Int {
    try await self.query(query, logger: logger, reading: Self.count)
  }

  static func count(_ rows: StatementRows) async throws -> Int {
    rows.count
  }
}
