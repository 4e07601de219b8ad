import AppStoreSimulator
import AppStoreVerification
import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

/// The operator's lists at the demo's size: refund requests, notifications not understood,
/// search, a changes webhook's deliveries and a relay target's queue and attempts. Each first
/// page goes through the library as the API and the console ask it, beside a `SELECT count(*)`
/// of the rows the list holds, which the page's total must equal.
struct OperatorLists {
  let database: BenchmarkDatabase
  let customers: Int
  let rounds: Int
  let logger: Logger

  /// One list: its first page through the library (rows, total when it has one) and the count
  /// of its rows in plain SQL (nil for a search, which has no total).
  struct Case: Sendable {
    let name: String
    let count: String?
    let page: @Sendable (Ledger) async throws -> (rows: Int, total: Int?)
  }

  static let endpoint = "hooks.example.com/changes"
  static let target = "staging"
  /// Deliveries the demo's backend webhook receives per customer in a year.
  static let changesPerCustomer = 12
  /// The demo's share of notifications not understood (14 of 19,076).
  static let notUnderstoodEvery = 1_400

  func run() async throws {
    let pki = try TestPKI()
    let simulation = Simulation(
      SimulationConfiguration(customers: customers, months: 12, seed: 2_026))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: pki,
      now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let notifications = store.notifications().map(\.signedPayload)
    let invented = try (0..<max(1, notifications.count / Self.notUnderstoodEvery)).map {
      try Self.notUnderstood(uuid: "bench-nu-\($0)", pki: pki)
    }
    let configuration = LedgerConfiguration(
      bundleId: "com.example.app", appAppleId: 1_234_567_890, environments: [.sandbox],
      trustedRoots: pki.trustedRoots, catalog: SimulatedProducts.catalog)
    try await database.withWriter { client in
      let ledger = try Ledger(client: client, configuration: configuration, logger: logger)
      let relays = Relays(ledger: ledger)
      _ = try await relays.add(
        name: Self.target, url: "https://staging.example.com/apple", by: "benchmark")
      let started = ContinuousClock.now
      try await Self.ingest(notifications + invented, into: ledger)
      try await seedQueues(notifications: notifications.count)
      print(
        String(
          format:
            "\noperator lists: %d customers, %d notifications ingested and queues seeded in %.0f s",
          customers, notifications.count + invented.count,
          seconds(ContinuousClock.now - started)))
      let transaction = simulation.truth.subscriptions.first ?? "0"
      let token = store.transaction(transaction)?.appAccountToken?.lowercased() ?? "0"
      try await measure(
        Self.cases(transaction: transaction, tokenStart: String(token.prefix(4))), ledger: ledger,
        client: client)
    }
  }

  /// A signed notification of a type and body no release knows, naming no app.
  static func notUnderstood(uuid: String, pki: TestPKI) throws -> String {
    let envelope: [String: Any] = [
      "notificationType": "WIDGETS_RECALLED", "notificationUUID": uuid, "version": "2.0",
      "signedDate": 1_767_225_600_000, "widgetInfo": ["widgetCount": 3],
    ]
    return pki.sign(payloadJSON: Array(try JSONSerialization.data(withJSONObject: envelope)))
  }

  /// Ingests through the library, four at a time, as the webhook does.
  static func ingest(_ payloads: [String], into ledger: Ledger) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, payload) in payloads.enumerated() {
        if index >= 4 { try await group.next() }
        group.addTask { _ = try await ledger.ingest(notification: payload) }
      }
      try await group.waitForAll()
    }
  }

  /// The delivery log and the relay queue in the demo's proportions, and one relay attempt per
  /// queued notification (a fifth of them two), as the workers leave them.
  func seedQueues(notifications: Int) async throws {
    let template = try JSONEncoder().encode([
      RelayAttempt.member: RelayAttempt(
        target: Self.target, urlKey: "staging.example.com/apple", notification: "asn2:template",
        notificationType: "DID_RENEW", environment: "Sandbox", streamId: "template",
        streamVersion: 1, attempt: 1, outcome: .delivered, status: 200, error: nil,
        sentAt: Timestamp(milliseconds: 1_767_225_600_000),
        answeredAt: Timestamp(milliseconds: 1_767_225_600_120),
        bodySHA256: String(repeating: "0", count: 64), bodyBytes: 4_000)
    ])
    let statements = [
      """
      INSERT INTO storeledger.change_endpoints (endpoint, enqueued_through)
      VALUES ('\(Self.endpoint)', \(customers * Self.changesPerCustomer))
      """,
      // 98 % delivered, 1 % retrying, 1 % dead.
      """
      INSERT INTO storeledger.change_deliveries (endpoint, position, app_account_token, state,
        attempts, first_attempt_at, last_attempt_at, last_status, last_error, delivered_at)
      SELECT '\(Self.endpoint)', i, md5((i % \(customers))::text)::uuid::text,
        CASE WHEN i % 100 = 0 THEN 'dead' WHEN i % 100 = 1 THEN 'pending' ELSE 'delivered' END,
        CASE WHEN i % 100 IN (0, 1) THEN 3 ELSE 1 END, now(), now(),
        CASE WHEN i % 100 IN (0, 1) THEN 503 ELSE 200 END,
        CASE WHEN i % 100 IN (0, 1) THEN 'the receiver answered 503' END,
        CASE WHEN i % 100 > 1 THEN now() END
      FROM generate_series(1, \(customers * Self.changesPerCustomer)) AS i
      """,
      """
      INSERT INTO storeledger.relay_deliveries (target, idempotency_key, stream_id,
        stream_version, tx_id, seq, notification_type, environment, state, attempts,
        first_attempt_at, last_attempt_at, last_status, delivered_at)
      SELECT '\(Self.target)', e.idempotency_key, e.stream_id, e.stream_version, e.tx_id, e.seq,
        e.payload->'notification'->>'notificationType', e.environment,
        CASE WHEN e.seq % 100 = 0 THEN 'dead' ELSE 'delivered' END, 1 + (e.seq % 5 = 0)::int,
        now(), now(), CASE WHEN e.seq % 100 = 0 THEN 410 ELSE 200 END,
        CASE WHEN e.seq % 100 <> 0 THEN now() END
      FROM storeledger.events e WHERE e.event_type = 'appstore.notification.v3'
      """,
      // Attempts are read by stream and version; the chain's hashes are not read here.
      """
      INSERT INTO storeledger.events (stream_id, stream_version, event_id, idempotency_key,
        event_type, recorded_at, payload, prev_hash, hash)
      SELECT 'relay:\(Self.target)', head.version + i, gen_random_uuid(),
        'bench-relay-attempt-' || i,
        '\(RelayAttempt.eventType)', now(),
        jsonb_set(jsonb_set('\(String(decoding: template, as: UTF8.self))'::jsonb,
          '{relayAttempt,streamVersion}', to_jsonb(head.version + i)),
          '{relayAttempt,notification}', to_jsonb('asn2:bench-' || (i * 5 / 6))),
        sha256(int8send(i - 1)), sha256(int8send(i))
      FROM generate_series(1, \(notifications * 6 / 5)) AS i,
        (SELECT coalesce(max(stream_version), 0) AS version FROM storeledger.events
          WHERE stream_id = 'relay:\(Self.target)') AS head
      """,
      "VACUUM ANALYZE storeledger.change_deliveries",
      "VACUUM ANALYZE storeledger.relay_deliveries",
      "VACUUM ANALYZE storeledger.events",
      "VACUUM ANALYZE storeledger.consumption_requests",
    ]
    try await PostgresClient.withRunningClient(
      database.server.with(database: database.name), logger: logger
    ) { client in
      for statement in statements {
        _ = try await client.execute(PostgresQuery(unsafeSQL: statement), logger: logger)
      }
    }
  }

  /// The lists, and two searches: by a subscription's original transaction id and by the
  /// first four characters of its account's token.
  static func cases(transaction: String, tokenStart: String) -> [Case] {
    let deliveries = "FROM storeledger.change_deliveries WHERE endpoint = '\(endpoint)'"
    let queue = "FROM storeledger.relay_deliveries WHERE target = '\(target)'"
    return [
      Case(
        name: "refund requests",
        count: "SELECT count(*) FROM storeledger.consumption_requests",
        page: { ledger in
          let page = try await ConsumptionRequests(ledger: ledger).page(limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "refund requests answered",
        count: "SELECT count(*) FROM storeledger.consumption_requests WHERE state = 'answered'",
        page: { ledger in
          let page = try await ConsumptionRequests(ledger: ledger).page(
            states: [.answered], limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "not understood",
        // The benchmark's invented type, and the one the simulator sends as Apple's future.
        count: """
          SELECT count(*) FROM storeledger.events
          WHERE payload->'notification'->>'notificationType' IN ('WIDGETS_RECALLED', 'GADGET_RECALL')
          """,
        page: { ledger in
          let page = try await SupportQueries(ledger: ledger).notUnderstoodPage(limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "deliveries", count: "SELECT count(*) \(deliveries)",
        page: { ledger in
          let page = try await ChangeDeliveryLog(ledger: ledger).changeDeliveriesPage(
            ChangeDeliveryFilter(endpoint: endpoint), limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "deliveries failing",
        count: """
          SELECT count(*) \(deliveries)
            AND (state = 'dead' OR (state = 'pending' AND attempts > 0))
          """,
        page: { ledger in
          let page = try await ChangeDeliveryLog(ledger: ledger).changeDeliveriesPage(
            ChangeDeliveryFilter(endpoint: endpoint, failing: true), limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "relay queue", count: "SELECT count(*) \(queue)",
        page: { ledger in
          let page = try await Relays(ledger: ledger).deliveriesPage(of: target, limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "relay dead letters", count: "SELECT count(*) \(queue) AND state = 'dead'",
        page: { ledger in
          let page = try await Relays(ledger: ledger).deliveriesPage(
            of: target, state: .dead, limit: 50)
          return (page.rows.count, page.total)
        }),
      Case(
        name: "relay attempts",
        count: """
          SELECT count(*) FROM storeledger.events
          WHERE stream_id = 'relay:\(target)' AND event_type = '\(RelayAttempt.eventType)'
          """,
        page: { ledger in
          let page = try await Relays(ledger: ledger).attemptsPage(of: target, limit: 50)
          return (page.attempts.count, page.total)
        }),
      Case(
        name: "search transaction id", count: nil,
        page: { ledger in
          (try await SupportQueries(ledger: ledger).findAccounts(matching: transaction).count, nil)
        }),
      Case(
        name: "search token start", count: nil,
        page: { ledger in
          (try await SupportQueries(ledger: ledger).findAccounts(matching: tokenStart).count, nil)
        }),
    ]
  }

  func measure(_ cases: [Case], ledger: Ledger, client: PostgresClient) async throws {
    print(
      "list                      rows  total     library p50/p99 ms   count(*) ms   p99 ≤ 100 ms")
    var worst = 0.0
    var mismatches: [String] = []
    for list in cases {
      var library: [Double] = []
      var counting: [Double] = []
      var (rows, total): (Int, Int?) = (0, nil)
      for round in 0..<(rounds + 3) {
        let start = ContinuousClock.now
        (rows, total) = try await list.page(ledger)
        let middle = ContinuousClock.now
        if let count = list.count {
          let counted = try await client.query(
            PostgresQuery(unsafeSQL: count), logger: logger,
            reading: { result in
              var total = 0
              for try await value in result.decode(Int.self) { total = value }
              return total
            })
          if counted != total {
            mismatches.append("\(list.name): total \(total ?? -1), count(*) \(counted)")
          }
        }
        let end = ContinuousClock.now
        // The first rounds warm the caches and are not counted.
        guard round >= 3 else { continue }
        library.append(seconds(middle - start) * 1000)
        counting.append(seconds(end - middle) * 1000)
      }
      let p99 = percentile(library, 0.99)
      worst = max(worst, p99)
      print(
        list.name.padding(toLength: 24, withPad: " ", startingAt: 0)
          + String(
            format: "%4d %7d   %8.2f / %8.2f     %8.2f      ", rows, total ?? -1,
            percentile(library, 0.5), p99, list.count == nil ? 0 : percentile(counting, 0.5))
          + (p99 <= 100 ? "yes" : "NO"))
    }
    print(String(format: "RESULT operator_list_p99_worst_ms=%.2f", worst))
    // A total that differs from its rows' count is a defect, whatever the speed.
    guard mismatches.isEmpty else {
      print("TOTALS DIFFER FROM count(*):\n" + Set(mismatches).sorted().joined(separator: "\n"))
      exit(1)
    }
  }
}
