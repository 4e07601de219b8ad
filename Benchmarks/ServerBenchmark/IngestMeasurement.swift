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

/// Webhook ingest of distinct notifications, next to verification alone and a plain INSERT of
/// rows of the same size from as many concurrent clients.
struct IngestMeasurement {
  let run: ServerBenchmarkRun
  let load: LoadClient
  let database: BenchmarkDatabase

  func measure() async throws {
    let count = run.options.notifications
    let clients = run.options.clients
    let signing = ContinuousClock.now
    let signed = SignedFixtures(pki: run.pki)
    let payloads = try (0..<count).map { index in
      try signed.notification(
        .subscribed, .initialBuy, uuid: "bench-\(index)",
        transaction: run.transaction(index, prefix: "n"))
    }
    let bodies = payloads.map { Array(#"{"signedPayload":"\#($0)"}"#.utf8) }
    print(
      "signed \(count) notifications in \(String(format: "%.1f", (ContinuousClock.now - signing).seconds)) s"
    )

    // While the load runs, how stale each projector's output is (sampled every 100 ms).
    let freshness = ProjectorFreshness(
      database: database,
      checkpoints: [AccountProjector.checkpointName, RevenueProjector.checkpointName],
      logger: run.logger)
    let sampler = Task { await freshness.sample() }
    let webhook = try await load.run(count: count, workers: clients) { [load] index in
      try await load.send(.POST, "/v1/notifications/appstore", body: bodies[index])
    }
    sampler.cancel()
    await sampler.value
    print(
      "webhook ingest, \(clients) clients: \(rate(count, webhook.seconds)) "
        + "(statuses \(webhook.statuses))")

    let lag = try await projectorCatchUp(database, logger: run.logger)
    print(
      "projector current for every account \(String(format: "%.2f", lag)) s after the load ended")
    let revenueCatchUp = try await freshness.catchUp(RevenueProjector.checkpointName)
    print(
      "revenue analytics past every event \(String(format: "%.2f", revenueCatchUp)) s after that")
    for (name, label) in [
      (AccountProjector.checkpointName, "account"), (RevenueProjector.checkpointName, "revenue"),
    ] {
      let ages = freshness.sorted(name)
      let p50 = ProjectorFreshness.percentile(ages, 0.5)
      let p99 = ProjectorFreshness.percentile(ages, 0.99)
      print(
        "\(name) during the load: oldest unprojected event p50 \(String(format: "%.3f", p50)) s, "
          + "p99 \(String(format: "%.3f", p99)) s, max \(String(format: "%.3f", ages.last ?? 0)) s "
          + "(\(ages.count) samples)")
      print(
        String(
          format: "RESULT %@_staleness_p50_s=%.3f p99_s=%.3f max_s=%.3f",
          label, p50, p99, ages.last ?? 0))
    }
    let verification = try await verificationAlone(payloads)
    print("ceiling: verification alone, 2 tasks: \(rate(count, verification))")
    let batched = try await batchedInsert(try await rows(of: payloads), clients: clients)
    print("ceiling: the same rows by 100-row INSERTs, \(clients) clients: \(rate(count, batched))")
    // The HTTP part of a webhook call: the same stack answering an account route 401 before
    // it reads the database.
    let http = try await load.run(count: count, workers: clients) { [load] index in
      try await load.send(.GET, "/v1/accounts/\(LedgerFixtures.account(index))/entitlements")
    }
    print(
      "ceiling: GET without a key, 401 (no database), same client, \(clients) clients: "
        + "\(rate(count, http.seconds))")
    // A webhook call does all three on the same two cores: its ceiling is one over the sum of
    // their per-item costs.
    let ceiling = verification + batched + http.seconds
    print("ceiling: the three together (1 / sum of per-item costs): \(rate(count, ceiling))")
    print(
      String(
        format: "RESULT webhook_per_s=%.0f ceiling_per_s=%.0f ratio=%.2f",
        Double(count) / webhook.seconds, Double(count) / ceiling, ceiling / webhook.seconds))
    print(String(format: "RESULT projector_lag_s=%.2f", lag))
    print(
      Target.line(
        "webhook ÷ its ceiling", ceiling / webhook.seconds, atLeast: 0.6))
    for (label, name) in [
      ("account views", AccountProjector.checkpointName),
      ("revenue analytics", RevenueProjector.checkpointName),
    ] {
      let p99 = ProjectorFreshness.percentile(freshness.sorted(name), 0.99)
      print(Target.line("\(label) behind the webhook load, p99 s", p99, atMost: 1.0))
    }
  }

  /// The rows the webhook stores for `payloads`, made by the ledger's own mapping.
  private func rows(of payloads: [String]) async throws -> [NewEvent] {
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: run.pki.trustedRoots, bundleId: SignedFixtures.bundleId,
        environment: .sandbox))
    var rows: [NewEvent] = []
    for payload in payloads {
      rows.append(
        try LedgerRecord.notification(
          await verifier.verifyNotification(payload), source: "webhook"
        ).event)
    }
    return rows
  }

  /// Verifies every payload in two tasks (this machine's cores); returns seconds.
  private func verificationAlone(_ payloads: [String]) async throws -> Double {
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: run.pki.trustedRoots, bundleId: SignedFixtures.bundleId,
        environment: .sandbox))
    let start = ContinuousClock.now
    await withTaskGroup(of: Void.self) { group in
      for half in 0..<2 {
        group.addTask {
          for index in stride(from: half, to: payloads.count, by: 2) {
            _ = try? await verifier.verifyNotification(payloads[index])
          }
        }
      }
    }
    return (ContinuousClock.now - start).seconds
  }

  /// The rows, 100 per INSERT, into a copy of the events table from `clients` clients (no
  /// hash chain, no index, no locks: what storing them costs at the least).
  private func batchedInsert(_ rows: [NewEvent], clients: Int) async throws -> Double {
    try await database.withWriter { client in
      let logger = run.logger
      let zero = ByteBuffer(bytes: [UInt8](repeating: 0, count: 32))
      let batches = stride(from: 0, to: rows.count, by: 100).map {
        Array(rows[$0..<min($0 + 100, rows.count)])
      }
      let start = ContinuousClock.now
      try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<clients {
          group.addTask {
            for index in stride(from: worker, to: batches.count, by: clients) {
              let batch = batches[index]
              try await client.execute(
                """
                INSERT INTO public.plain_events (stream_id, stream_version, event_id,
                  idempotency_key, event_type, environment, apple_signed_at, recorded_at,
                  payload, raw_signed, metadata, claims, prev_hash, hash)
                SELECT 'plain:' || r.key, 1, r.id, r.key, r.type, 'Sandbox', now(), now(),
                  r.payload::jsonb, r.raw, '{}', r.claims::jsonb, \(zero), \(zero)
                FROM unnest(\(batch.map(\.idempotencyKey))::text[], \(batch.map(\.eventId))::uuid[],
                  \(batch.map(\.eventType))::text[],
                  \(batch.map { String(decoding: $0.payload, as: UTF8.self) })::text[],
                  \(batch.map { $0.rawSigned ?? "" })::text[],
                  \(batch.map { String(decoding: $0.claims ?? [], as: UTF8.self) })::text[])
                  AS r(key, id, type, payload, raw, claims)
                """, logger: logger)
            }
          }
        }
        try await group.waitForAll()
      }
      return (ContinuousClock.now - start).seconds
    }
  }
}
