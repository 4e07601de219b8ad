import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
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

    let webhook = try await load.run(count: count, workers: clients) { [load] index in
      try await load.send(.POST, "/v1/notifications/appstore", body: bodies[index])
    }
    print(
      "webhook ingest, \(clients) clients: \(rate(count, webhook.seconds)) "
        + "(statuses \(webhook.statuses))")

    let verification = try verificationAlone(payloads)
    print("ceiling: verification alone, 2 threads: \(rate(count, verification))")
    let plain = try await plainInsert(payloads, clients: clients)
    print("ceiling: plain single-row INSERT, \(clients) clients: \(rate(count, plain))")
    let http = try await load.run(count: count, workers: clients) { [load] _ in
      try await load.send(.GET, "/metrics")
    }
    print("ceiling: GET /metrics (no database), same client, \(clients) clients: \(rate(count, http.seconds))")
    // A webhook call does all three on the same two cores: its ceiling is at most one over the
    // sum of their per-item costs.
    let combined = verification + plain + http.seconds
    print("ceiling: the three together (1 / sum of per-item costs): \(rate(count, combined))")
    print(
      String(
        format: "webhook / verification %.2f, webhook / plain INSERT %.2f, webhook / combined %.2f",
        verification / webhook.seconds, plain / webhook.seconds, combined / webhook.seconds))
  }

  /// Verifies every payload on two threads (this machine's cores); returns seconds.
  private func verificationAlone(_ payloads: [String]) throws -> Double {
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: run.pki.trustedRoots, bundleId: SignedFixtures.bundleId,
        environment: .sandbox))
    let start = ContinuousClock.now
    DispatchQueue.concurrentPerform(iterations: 2) { half in
      for index in stride(from: half, to: payloads.count, by: 2) {
        _ = try? verifier.verifyNotification(payloads[index])
      }
    }
    return (ContinuousClock.now - start).seconds
  }

  /// One INSERT per payload into a copy of the events table, rows shaped like the webhook's.
  private func plainInsert(_ payloads: [String], clients: Int) async throws -> Double {
    try await database.withWriter { client in
      let logger = run.logger
      let zero = ByteBuffer(bytes: [UInt8](repeating: 0, count: 32))
      let start = ContinuousClock.now
      try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<clients {
          group.addTask {
            for index in stride(from: worker, to: payloads.count, by: clients) {
              let payload = #"{"notification":{"raw":"\#(payloads[index].prefix(900))"}}"#
              try await client.execute(
                """
                INSERT INTO public.plain_events (stream_id, stream_version, event_id,
                  idempotency_key, event_type, environment, apple_signed_at, recorded_at,
                  payload, raw_signed, metadata, prev_hash, hash)
                VALUES (\("plain:\(index)"), 1, \(UUID()), \("plain-\(index)"),
                  'appstore.notification.v1', 'Sandbox', now(), now(), \(payload)::jsonb,
                  \(payloads[index]), '{}', \(zero), \(zero))
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
