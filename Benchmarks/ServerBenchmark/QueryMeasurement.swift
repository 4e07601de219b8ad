import AppStoreVerification
import BenchmarkSupport
import Foundation
import Logging
import NIOHTTP1
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

/// GET entitlements for random accounts among many, next to its ceiling: the same request
/// without its key, answered 401 by the same stack (router, middleware, the account route's
/// path) before anything reads the database, under the same load.
struct QueryMeasurement {
  let run: ServerBenchmarkRun
  let load: LoadClient
  let database: BenchmarkDatabase

  func measure() async throws {
    let accounts = run.options.accounts
    try await loadAccounts(accounts)
    let lag = try await projectorCatchUp(database, logger: run.logger)
    print(
      "projector current for every account \(String(format: "%.1f", lag)) s after the load ended")
    let duration = Duration.seconds(run.options.seconds)
    let clients = run.options.clients
    let get = try await load.timed(for: duration, workers: clients) { [load] index in
      let account = (index &* 2_654_435_761) % accounts
      return try await load.send(
        .GET, "/v1/accounts/\(LedgerFixtures.account(account))/entitlements",
        bearer: ServerBenchmarkRun.apiKey)
    }
    print(
      "GET entitlements at \(accounts) accounts, \(clients) clients: "
        + "\(rate(get.latencies.count, get.seconds)), p50 \(milliseconds(percentile(get.latencies, 0.5))), "
        + "p99 \(milliseconds(percentile(get.latencies, 0.99))), non-200: \(get.failures)")
    let ceiling = try await load.timed(for: duration, workers: clients) { [load] index in
      let account = (index &* 2_654_435_761) % accounts
      let status = try await load.send(
        .GET, "/v1/accounts/\(LedgerFixtures.account(account))/entitlements")
      return status == 401 ? 200 : status
    }
    print(
      "ceiling: the same GET without a key, 401 (no database), \(clients) clients: "
        + "\(rate(ceiling.latencies.count, ceiling.seconds)), p99 \(milliseconds(percentile(ceiling.latencies, 0.99)))"
    )
    if WrkLoad.isAvailable { try measureWithWrk(accounts: accounts) }
    try await measureEmbedded(accounts: accounts)
  }

  /// `Ledger.entitlements(for:)` in this process, one call at a time: from the in-process
  /// cache (a projector here has projected every account) and without it (a round trip to the
  /// stored view).
  private func measureEmbedded(accounts: Int) async throws {
    try await database.withWriter { client in
      let configuration = LedgerConfiguration(
        bundleId: SignedFixtures.bundleId, environments: [.sandbox],
        trustedRoots: run.pki.trustedRoots)
      let cached = try Ledger(client: client, configuration: configuration, logger: run.logger)
      var uncachedConfiguration = configuration
      uncachedConfiguration.viewCacheCapacity = 0
      let uncached = try Ledger(
        client: client, configuration: uncachedConfiguration, logger: run.logger)
      let projector = AccountProjector(ledger: cached, logger: run.logger)
      let following = Task { await projector.run() }
      defer { following.cancel() }
      // The server's projector has projected every account; reading each once (a round trip)
      // puts its view in this process's cache, which answers while `projector` follows the
      // feed.
      try await Task.sleep(for: .milliseconds(500))
      for account in 0..<accounts {
        _ = try await cached.entitlements(for: LedgerFixtures.account(account))
      }
      let calls = min(accounts, 20_000)
      func latencies(_ ledger: Ledger) async throws -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(calls)
        for index in 0..<calls {
          let token = LedgerFixtures.account((index &* 2_654_435_761) % accounts)
          let start = ContinuousClock.now
          let entitlements = try await ledger.entitlements(for: token)
          let elapsed = (ContinuousClock.now - start).components
          latencies.append(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
          precondition(entitlements.count == 1)
        }
        return latencies
      }
      let hits = try await latencies(cached)
      let misses = try await latencies(uncached)
      func microseconds(_ values: [Double], _ share: Double) -> Double {
        percentile(values, share) * 1e6
      }
      print(
        String(
          format:
            "embedded entitlements(for:) at %d accounts, %d calls: cached p50 %.1f µs p99 %.1f µs; round trip p50 %.0f µs p99 %.0f µs",
          accounts, calls, microseconds(hits, 0.5), microseconds(hits, 0.99),
          microseconds(misses, 0.5), microseconds(misses, 0.99)))
      print(
        String(
          format: "RESULT embedded_hit_p99_us=%.1f miss_p99_us=%.0f", microseconds(hits, 0.99),
          microseconds(misses, 0.99)))
    }
  }

  /// GET entitlements and its ceiling in alternating rounds (GET, 401, GET, 401, …), so what
  /// drifts on a shared machine during the run (another job, the page cache, the projector's
  /// sweep) falls on both alike. Each figure is the median of its rounds; the ratio is the
  /// median of the rounds' own ratios.
  private func measureWithWrk(accounts: Int) throws {
    let wrk = WrkLoad(
      base: "http://127.0.0.1:\(run.options.port)", connections: run.options.clients)
    let rounds = 3
    let seconds = max(2, Int(run.options.seconds) / rounds)
    let path = "/v1/accounts/00000000-0000-4000-8000-{n}/entitlements"
    var (gets, ceilings) = ([WrkLoad.Result](), [WrkLoad.Result]())
    for round in 1...rounds {
      let get = try wrk.get(
        path, spread: accounts, bearer: ServerBenchmarkRun.apiKey, seconds: seconds)
      let ceiling = try wrk.get(path, spread: accounts, bearer: nil, seconds: seconds)
      print(
        "wrk round \(round)/\(rounds), \(seconds) s each: GET entitlements at \(accounts) accounts "
          + String(format: "%.0f/s", get.requestsPerSecond)
          + " (p50 \(get.p50), p99 \(get.p99), non-2xx \(get.non2xx)); the same GET without a key, "
          + "401 (no database): " + String(format: "%.0f/s", ceiling.requestsPerSecond)
          + " (p99 \(ceiling.p99))")
      gets.append(get)
      ceilings.append(ceiling)
    }
    let ratios = zip(gets, ceilings).map { $0.requestsPerSecond / $1.requestsPerSecond }
    let p99s = gets.compactMap { WrkLoad.milliseconds($0.p99) }
    print(
      String(
        format: "RESULT get_per_s=%.0f ceiling_per_s=%.0f ratio=%.2f p99_ms=%.2f",
        Self.median(gets.map(\.requestsPerSecond)), Self.median(ceilings.map(\.requestsPerSecond)),
        Self.median(ratios), p99s.isEmpty ? -1 : Self.median(p99s)))
    print(
      Target.line("GET entitlements ÷ the same GET answered 401", Self.median(ratios), atLeast: 0.7)
    )
    if !p99s.isEmpty {
      print(
        Target.line("GET entitlements p99 ms (\(accounts) accounts)", Self.median(p99s), atMost: 5))
    }
  }

  private static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
      ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
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
