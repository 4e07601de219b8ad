import Foundation
import Logging
import PostgresNIO
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerPostgres

/// A connection that ends in the middle of a large answer (a switchover's fast shutdown, a
/// network cut) fails the statement and nothing else. With PostgresNIO's streamed rows a
/// reader that paused between two batches stopped the whole process when the end of file
/// came: the statements read all their rows as they arrive instead (``StatementRows``).
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConnectionCutTests {
  /// 200 rows of 16,000 bytes (3.2 MB); the cut comes after 24 KB (inside the second row),
  /// 90 KB or 400 KB of the answer, five times each, while the reader would be waiting for
  /// the cut after its first row. Every statement fails; the process goes on, and a new
  /// connection through the same relay reads all 200 rows.
  @Test(arguments: [24_000, 90_000, 400_000])
  func aCutInTheMiddleOfAnAnswerFailsOnlyThatStatement(after bytes: Int) async throws {
    let server = try #require(TestDatabase.serverURL)
    let relay = try await CuttingRelay.start(to: server.host, port: server.port)
    defer { Task { try? await relay.stop() } }
    let logger = TestDatabase.logger
    let configuration = PostgresConnection.Configuration(
      host: "127.0.0.1", port: relay.port, username: server.username,
      password: server.password, database: server.database, tls: .disable)
    let large: PostgresQuery = "SELECT repeat('x', 16000) FROM generate_series(1, 200)"
    try await withTimeout(.seconds(120)) {
      for round in 0..<5 {
        let connection = try await PostgresConnection.connect(
          configuration: configuration, id: round, logger: logger)
        relay.cut(after: bytes)
        let handedOver = try await Self.outcome {
          try await connection.query(large, logger: logger) { rows in
            var count = 0
            for try await _ in rows {
              count += 1
              // A streamed reader pauses here with the rest of the answer unread.
              if count == 1 { try await Self.waitForCut(round + 1, relay) }
            }
            return count
          }
        }
        #expect(relay.cuts == round + 1)
        #expect(handedOver == nil, "round \(round): the statement read \(handedOver ?? 0) rows")
        try? await connection.close()
      }
      let connection = try await PostgresConnection.connect(
        configuration: configuration, id: 99, logger: logger)
      let count = try await connection.query(large, logger: logger) { rows in rows.count }
      try await connection.close()
      #expect(count == 200)
    }
  }

  /// The rows handed over, or nil when the statement failed as a closed connection does.
  static func outcome(_ statement: () async throws -> Int) async throws -> Int? {
    do {
      return try await statement()
    } catch is ConnectionClosedError {
      return nil
    } catch let error as PSQLError where Self.closed.contains(error.code) {
      return nil
    }
  }

  static let closed: [PSQLError.Code] = [.serverClosedConnection, .clientClosedConnection]

  static func waitForCut(_ cuts: Int, _ relay: CuttingRelay) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while relay.cuts < cuts, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
  }
}
