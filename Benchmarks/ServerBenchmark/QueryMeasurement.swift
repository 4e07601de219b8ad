import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

/// GET entitlements for random accounts among many, next to an endpoint that does not touch
/// the database (/metrics) under the same load.
struct QueryMeasurement {
  let run: ServerBenchmarkRun
  let load: LoadClient
  let database: BenchmarkDatabase

  func measure() async throws {
    let accounts = run.options.accounts
    try await loadAccounts(accounts)
    let duration = Duration.seconds(run.options.seconds)
    let clients = run.options.clients
    let get = try await load.timed(for: duration, workers: clients) { [load] index in
      let account = (index &* 2_654_435_761) % accounts
      return try await load.send(
        .GET, "/v1/accounts/acct-q-\(account)/entitlements", bearer: ServerBenchmarkRun.apiKey)
    }
    print(
      "GET entitlements at \(accounts) accounts, \(clients) clients: "
        + "\(rate(get.latencies.count, get.seconds)), p50 \(milliseconds(percentile(get.latencies, 0.5))), "
        + "p99 \(milliseconds(percentile(get.latencies, 0.99))), non-200: \(get.failures)")
    let ceiling = try await load.timed(for: duration, workers: clients) { [load] _ in
      try await load.send(.GET, "/metrics")
    }
    print(
      "ceiling: GET /metrics (no database), \(clients) clients: "
        + "\(rate(ceiling.latencies.count, ceiling.seconds)), p99 \(milliseconds(percentile(ceiling.latencies, 0.99)))"
    )
  }

  /// One subscribed account per index, through the Ledger (verified, appended, indexed).
  private func loadAccounts(_ count: Int) async throws {
    let start = ContinuousClock.now
    let signed = SignedFixtures(pki: run.pki)
    try await database.withWriter { client in
      let ledger = try Ledger(
        client: client,
        configuration: LedgerConfiguration(
          bundleId: SignedFixtures.bundleId, environments: [.sandbox],
          trustedRoots: run.pki.trustedRoots),
        logger: run.logger)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<32 {
          group.addTask {
            for index in stride(from: worker, to: count, by: 32) {
              let jws = try signed.transaction(run.transaction(index, prefix: "q"))
              _ = try await ledger.ingest(signedTransaction: jws)
            }
          }
        }
        try await group.waitForAll()
      }
    }
    print(
      "loaded \(count) accounts in \(String(format: "%.0f", (ContinuousClock.now - start).seconds)) s"
    )
  }
}
