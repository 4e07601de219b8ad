import Logging
import PostgresNIO

extension PostgresClient {
  /// Runs `body` with a client for `url` whose connection pool runs for exactly as long; for
  /// command-line tools and tests. Long-lived servers run the client as a Service instead.
  /// With several hosts (or a `target_session_attrs`), the client is the pool of the one
  /// that accepts writes (looked for within 30 s).
  package static func withRunningClient<Result: Sendable>(
    _ url: DatabaseURL, logger: Logger,
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    guard url.hosts.count > 1 || url.targetSessionAttributes != .any else {
      return try await withRunningClient(url.clientConfiguration, logger: logger, body)
    }
    return try await DatabaseHosts.withRunning(try DatabaseHosts.primary(url, logger: logger)) {
      hosts in try await body(try await hosts.located(within: .seconds(30)))
    }
  }

  /// The same with a configuration of the caller's (pool size, timeouts).
  package static func withRunningClient<Result: Sendable>(
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
}
