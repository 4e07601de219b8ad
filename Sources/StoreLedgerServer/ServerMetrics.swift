import Foundation
import StoreLedger
import StoreLedgerPostgres
import Synchronization

/// The server's counters and the append latency histogram, rendered in Prometheus' text
/// format at `/metrics`. Labels carry routes, outcomes and codes, never tokens or payloads.
public final class ServerMetrics: Sendable {
  private struct State {
    var requests: [[String]: Int] = [:]
    var ingests: [[String]: Int] = [:]
    var verificationFailures: [String: Int] = [:]
    var appendBuckets = [Int](repeating: 0, count: ServerMetrics.appendBounds.count)
    var appendCount = 0
    var appendSum = 0.0
  }

  /// Upper bounds (seconds) of the append latency buckets.
  static let appendBounds: [Double] = [
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  ]
  private let state = Mutex(State())
  private let projector = Mutex<AccountProjector?>(nil)
  private let ledger = Mutex<Ledger?>(nil)

  public init() {}

  /// Reports `projector`'s progress with the server's metrics.
  func attach(_ projector: AccountProjector) {
    self.projector.withLock { $0 = projector }
  }

  /// Reports the refund requests `ledger` holds (read at each scrape).
  /// Whether this server delivers changes to webhooks: only then does `/metrics` read the
  /// delivery counts (two more queries on every scrape otherwise).
  private let deliversChanges = Mutex(false)

  func attachChangeDelivery() {
    deliversChanges.withLock { $0 = true }
  }

  func attach(_ ledger: Ledger) {
    self.ledger.withLock { $0 = ledger }
  }

  /// ``render()`` and the gauges read from the database, each bounded by a short timeout
  /// (a slow database leaves them out rather than stalling the scrape).
  public func renderWithDatabase() async -> String {
    var text = render()
    if let ledger = ledger.withLock({ $0 }),
      let metrics = try? await withTimeout(.seconds(2), { try await ledger.consumptionMetrics() })
    {
      text += Self.consumptionFamilies(metrics)
    }
    if deliversChanges.withLock({ $0 }), let ledger = ledger.withLock({ $0 }),
      let counts = try? await withTimeout(.seconds(2), { try await ledger.changeDeliveryCounts() }),
      let head = try? await withTimeout(.seconds(2), { try await ledger.changeFeedHead() })
    {
      text += Self.changeFamilies(counts, head: head)
    }
    return text
  }

  static func changeFamilies(_ counts: [ChangeDeliveryCounts], head: Int64) -> String {
    var text =
      "# HELP storeledger_changes_head The newest position of the change feed.\n"
      + "# TYPE storeledger_changes_head gauge\nstoreledger_changes_head \(head)\n"
    guard !counts.isEmpty else { return text }
    let deliveries = "storeledger_change_deliveries"
    text +=
      "# HELP \(deliveries) Webhook deliveries of changes not delivered, by endpoint and state "
      + "(retrying: failed at least once; waiting: not tried yet, or not queued yet).\n"
      + "# TYPE \(deliveries) gauge\n"
    for count in counts {
      let endpoint = "endpoint=\"\(escaped(count.endpoint))\""
      let rows: [(String, Int)] = [
        ("retrying", count.retrying), ("waiting", count.waiting + count.unqueued),
        ("dead", count.dead),
      ]
      for (state, value) in rows {
        text += "\(deliveries){\(endpoint),state=\"\(state)\"} \(value)\n"
      }
    }
    let delivered = "storeledger_changes_delivered_total"
    text +=
      "# HELP \(delivered) Changes the endpoint accepted (2xx), resends included.\n"
      + "# TYPE \(delivered) counter\n"
    for count in counts {
      text += "\(delivered){endpoint=\"\(escaped(count.endpoint))\"} \(count.delivered)\n"
    }
    let lag = "storeledger_change_delivery_lag_seconds"
    text +=
      "# HELP \(lag) Age of the oldest change not yet delivered to the endpoint.\n"
      + "# TYPE \(lag) gauge\n"
    for count in counts {
      text += "\(lag){endpoint=\"\(escaped(count.endpoint))\"} \(count.lagSeconds)\n"
    }
    return text
  }

  static func consumptionFamilies(_ metrics: ConsumptionMetrics) -> String {
    let name = "storeledger_consumption_requests"
    var text =
      "# HELP \(name) Refund requests (CONSUMPTION_REQUEST) by state; answered ones by "
      + "timeliness and Apple's decision after the answer.\n# TYPE \(name) gauge\n"
    let rows: [(String, Int)] = [
      ("state=\"pending\"", metrics.pending),
      ("state=\"answered\",timeliness=\"in_time\"", metrics.answeredInTime),
      ("state=\"answered\",timeliness=\"late\"", metrics.late),
      ("state=\"expired\"", metrics.expired), ("state=\"failed\"", metrics.failed),
      ("state=\"skipped\"", metrics.skipped),
    ]
    for (labels, value) in rows { text += "\(name){\(labels)} \(value)\n" }
    let decided = "storeledger_consumption_decisions"
    text +=
      "# HELP \(decided) Apple's decisions on requests StoreLedger answered.\n"
      + "# TYPE \(decided) gauge\n"
      + "\(decided){decision=\"refunded\"} \(metrics.refundedAfterAnswer)\n"
      + "\(decided){decision=\"declined\"} \(metrics.declinedAfterAnswer)\n"
    return text
  }

  func request(method: String, route: String, status: Int) {
    state.withLock { $0.requests[[method, route, String(status)], default: 0] += 1 }
  }

  /// One ingest (`kind`: notification, transaction, link, debit) and how it ended.
  func ingest(kind: String, outcome: String, notificationType: String? = nil) {
    state.withLock { $0.ingests[[kind, outcome, notificationType ?? ""], default: 0] += 1 }
  }

  func verificationFailure(code: String) {
    state.withLock { $0.verificationFailures[code, default: 0] += 1 }
  }

  func append(seconds: Double) {
    state.withLock { state in
      state.appendCount += 1
      state.appendSum += seconds
      for (index, bound) in Self.appendBounds.enumerated() where seconds <= bound {
        state.appendBuckets[index] += 1
      }
    }
  }

  /// The exposition text.
  public func render() -> String {
    let state = self.state.withLock { $0 }
    var text = ""
    text += family(
      "storeledger_http_requests_total", "counter", "HTTP requests by method, route and status.",
      state.requests, labels: ["method", "route", "status"])
    text += family(
      "storeledger_ingests_total", "counter",
      "Ingested inputs by kind, outcome (stored, duplicate, rejected) and notification type.",
      state.ingests, labels: ["kind", "outcome", "notification_type"])
    text += family(
      "storeledger_verification_failures_total", "counter",
      "Signed data refused by the verifier, by reason.",
      Dictionary(uniqueKeysWithValues: state.verificationFailures.map { ([$0.key], $0.value) }),
      labels: ["code"])
    text += histogram(state)
    if let progress = projector.withLock({ $0?.progress }) {
      text += projectorFamilies(progress)
    }
    return text
  }

  private func projectorFamilies(_ progress: AccountProjector.Progress) -> String {
    let families: [(String, String, String, String)] = [
      (
        "storeledger_projector_lag_seconds", "gauge",
        "Age of the oldest event the account projector had not projected at its last read.",
        "\(progress.lagSeconds)"
      ),
      (
        "storeledger_projector_events_total", "counter",
        "Events of the feed the account projector has projected.", "\(progress.eventsProjected)"
      ),
      (
        "storeledger_projector_accounts_total", "counter",
        "Account views the projector has computed and stored.", "\(progress.accountsProjected)"
      ),
      (
        "storeledger_projector_failures_total", "counter",
        "Projector rounds that failed (and were retried).", "\(progress.failures)"
      ),
    ]
    return families.map { name, type, help, value in
      "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
    }.joined()
  }

  private func family(
    _ name: String, _ type: String, _ help: String, _ values: [[String]: Int], labels: [String]
  ) -> String {
    var text = "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    for (key, value) in values.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
      let pairs = zip(labels, key).map { "\($0)=\"\(Self.escaped($1))\"" }
      text += "\(name){\(pairs.joined(separator: ","))} \(value)\n"
    }
    return text
  }

  private func histogram(_ state: State) -> String {
    let name = "storeledger_append_seconds"
    var text =
      "# HELP \(name) Time to verify, append and index one input.\n# TYPE \(name) histogram\n"
    for (bound, count) in zip(Self.appendBounds, state.appendBuckets) {
      text += "\(name)_bucket{le=\"\(bound)\"} \(count)\n"
    }
    text += "\(name)_bucket{le=\"+Inf\"} \(state.appendCount)\n"
    text += "\(name)_sum \(state.appendSum)\n\(name)_count \(state.appendCount)\n"
    return text
  }

  private static func escaped(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
