import BenchmarkSupport
import Logging
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport

/// Seconds from now until the server's projector has a current view of every account.
func projectorCatchUp(_ database: BenchmarkDatabase, logger: Logger) async throws -> Double {
  let start = ContinuousClock.now
  while try await database.withWriter({ client in
    try await client.query(
      "SELECT count(*) FROM storeledger.account_views WHERE projected_changes < changes",
      logger: logger
    ) { rows in
      var count = 0
      for try await value in rows.decode(Int.self) { count = value }
      return count
    }
  }) > 0 {
    try await Task.sleep(for: .milliseconds(20))
  }
  return (ContinuousClock.now - start).seconds
}
