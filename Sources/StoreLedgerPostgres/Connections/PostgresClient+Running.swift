import Logging
import PostgresNIO

extension PostgresClient {
  /// Runs `body` with a client for `url` whose connection pool runs for exactly as long; for
  /// command-line tools and tests. Long-lived servers run the client as a Service instead.
  package static func withRunningClient<Result: Sendable>(
    _ url: DatabaseURL, logger: Logger,
    _ body: @Sendable (PostgresClient) async throws -> Result
  ) async throws -> Result {
    try await withRunningClient(url.clientConfiguration, logger: logger, body)
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
