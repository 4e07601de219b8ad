import CoreMetrics
import Foundation
import Metrics
import Prometheus
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// The server's metrics in Prometheus' text format at `/metrics`: what happens (requests,
/// ingests, verification failures, append latency) is recorded through swift-metrics into the
/// server's own Prometheus registry; what is (projectors, replicas, refund requests, change
/// deliveries) is read at each scrape. Labels carry apps, routes, outcomes and codes, never
/// tokens or payloads. A server of several apps (an apps file) puts an `app` label on every
/// sample; one app from flags has none.
public final class ServerMetrics: Sendable {
  private struct State {
    var labelsApps = false
    /// When verification failures and webhook errors happened in the last 24 hours, by app
    /// (the console's overview).
    var recentFailures: [String: [Date]] = [:]
    var recentWebhookErrors: [String: [Date]] = [:]
  }

  /// What the server reports of one app's ledger at each scrape.
  private struct Attached {
    var projector: AccountProjector?
    var ledger: Ledger?
    /// Only a server that delivers changes reads their counts (two more queries a scrape).
    var deliversChanges = false
  }

  /// Upper bounds of the append latency buckets.
  static let appendBounds: [Duration] = [
    .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
    .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
    .milliseconds(2500),
  ]
  static let requestsFamily = "storeledger_http_requests_total"
  static let ingestsFamily = "storeledger_ingests_total"
  static let failuresFamily = "storeledger_verification_failures_total"
  static let appendFamily = "storeledger_append_seconds"
  static let authenticationFamily = "storeledger_authentication_alarms_total"

  private let state = Mutex(State())
  private let attached = Mutex([String: Attached]())
  private let registry = PrometheusCollectorRegistry()
  private let factory: ServerMetricsFactory
  /// The handles made so far, by family and label values: making one takes the registry's
  /// lock and checks its labels, which a request should not pay again.
  private let counters = Mutex<[[String]: Metrics.Counter]>([:])
  private let timers = Mutex<[String: Metrics.Timer]>([:])

  public init() {
    factory = ServerMetricsFactory(
      registry: registry,
      help: [
        Self.requestsFamily: "HTTP requests by method, route and status.",
        Self.ingestsFamily:
          "Ingested inputs by kind, outcome (stored, not_understood, unrouted, duplicate, "
          + "rejected) and notification type.",
        Self.failuresFamily: "Signed data refused by the verifier, by reason.",
        Self.appendFamily: "Time to verify, append and index one input.",
        Self.authenticationFamily:
          "Named keys locked after repeated wrong secrets (kind named_key), client addresses "
          + "locked after repeated failed keys (kind address), and bursts of unknown keys "
          + "presented (kind unknown_keys).",
      ],
      buckets: [Self.appendFamily: Self.appendBounds])
  }

  /// The dimensions of one sample: `app` first when samples carry it.
  private func dimensions(app: String, _ pairs: KeyValuePairs<String, String>)
    -> [(String, String)]
  {
    let labelsApps = state.withLock { $0.labelsApps }
    return (labelsApps ? [("app", app)] : []) + pairs.map { ($0.key, $0.value) }
  }

  /// The counter of `family` with `pairs` (and the app), made once.
  private func counter(_ family: String, app: String, _ pairs: KeyValuePairs<String, String>)
    -> Metrics.Counter
  {
    let key = [family, app] + pairs.map(\.value)
    if let counter = counters.withLock({ $0[key] }) { return counter }
    let counter = Metrics.Counter(
      label: family, dimensions: dimensions(app: app, pairs), factory: factory)
    counters.withLock { $0[key] = counter }
    return counter
  }

  /// Puts an `app` label on every sample (a server of several apps).
  func labelApps() {
    state.withLock { $0.labelsApps = true }
  }

  /// Reports `projector`'s progress for `app`.
  func attach(_ projector: AccountProjector, app: String) {
    attached.withLock { $0[app, default: Attached()].projector = projector }
  }

  func attachChangeDelivery(app: String) {
    attached.withLock { $0[app, default: Attached()].deliversChanges = true }
  }

  /// Reports the refund requests (and, when delivering, the changes) of `app`'s ledger.
  func attach(_ ledger: Ledger, app: String) {
    attached.withLock { $0[app, default: Attached()].ledger = ledger }
  }

  /// The recorder of one app's ingests.
  func app(_ name: String) -> AppMetrics {
    AppMetrics(server: self, app: name)
  }

  private var apps: [(name: String, attached: Attached)] {
    attached.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// ``render()`` and the gauges read from each app's database, each bounded by a short
  /// timeout (a slow database leaves them out rather than stalling the scrape).
  public func renderWithDatabase() async -> String {
    var text = render()
    let labels = state.withLock { $0.labelsApps }
    var consumption: [(String, ConsumptionMetrics)] = []
    var changes: [(String, [ChangeDeliveryCounts], Int64)] = []
    var waiting: [(String, Int)] = []
    for (name, app) in apps {
      guard let ledger = app.ledger else { continue }
      let label = labels ? name : nil
      waiting.append((Self.appLabel(label), ChangeFeedReader(ledger: ledger).readersWaiting))
      if let metrics = try? await withTimeout(
        .seconds(2), { try await ConsumptionRequests(ledger: ledger).metrics() })
      {
        consumption.append((Self.appLabel(label), metrics))
      }
      if app.deliversChanges,
        let counts = try? await withTimeout(
          .seconds(2), { try await ChangeDeliveryLog(ledger: ledger).changeDeliveryCounts() }),
        let head = try? await withTimeout(
          .seconds(2), { try await ChangeFeedReader(ledger: ledger).head() })
      {
        changes.append((Self.appLabel(label), counts, head))
      }
    }
    if !consumption.isEmpty { text += Self.consumptionFamilies(consumption) }
    if !changes.isEmpty { text += Self.changeFamilies(changes) }
    if !waiting.isEmpty {
      let family = "storeledger_change_feed_readers_waiting"
      text +=
        "# HELP \(family) Readers of the change feed waiting for the next change (long polls, "
        + "and the deliverer between rounds).\n# TYPE \(family) gauge\n"
      for (app, count) in waiting { text += "\(family)\(Self.braced(app)) \(count)\n" }
    }
    return text
  }

  /// `app="name",` to begin a label list, or nothing.
  static func appLabel(_ app: String?) -> String {
    app.map { "app=\"\(escaped($0))\"," } ?? ""
  }

  /// `{labels}` without a trailing comma, or nothing when empty.
  static func braced(_ labels: String) -> String {
    let trimmed = labels.hasSuffix(",") ? String(labels.dropLast()) : labels
    return trimmed.isEmpty ? "" : "{\(trimmed)}"
  }

  static func changeFamilies(_ apps: [(String, [ChangeDeliveryCounts], Int64)]) -> String {
    var text =
      "# HELP storeledger_changes_head The newest position of the change feed.\n"
      + "# TYPE storeledger_changes_head gauge\n"
    for (app, _, head) in apps { text += "storeledger_changes_head\(braced(app)) \(head)\n" }
    let endpoints = apps.flatMap { app, counts, _ in
      counts.map { (app + "endpoint=\"\(escaped($0.endpoint))\"", $0) }
    }
    guard !endpoints.isEmpty else { return text }
    let deliveries = "storeledger_change_deliveries"
    text +=
      "# HELP \(deliveries) Webhook deliveries of changes not delivered, by endpoint and state "
      + "(retrying: failed at least once; waiting: not tried yet, or not queued yet).\n"
      + "# TYPE \(deliveries) gauge\n"
    for (labels, count) in endpoints {
      let rows: [(String, Int)] = [
        ("retrying", count.retrying), ("waiting", count.waiting + count.unqueued),
        ("dead", count.dead),
      ]
      for (state, value) in rows {
        text += "\(deliveries){\(labels),state=\"\(state)\"} \(value)\n"
      }
    }
    let delivered = "storeledger_changes_delivered_total"
    text +=
      "# HELP \(delivered) Changes the endpoint accepted (2xx), resends included.\n"
      + "# TYPE \(delivered) counter\n"
    for (labels, count) in endpoints { text += "\(delivered){\(labels)} \(count.delivered)\n" }
    let lag = "storeledger_change_delivery_lag_seconds"
    text +=
      "# HELP \(lag) Age of the oldest change not yet delivered to the endpoint.\n"
      + "# TYPE \(lag) gauge\n"
    for (labels, count) in endpoints { text += "\(lag){\(labels)} \(count.lagSeconds)\n" }
    return text
  }

  static func consumptionFamilies(_ apps: [(String, ConsumptionMetrics)]) -> String {
    let name = "storeledger_consumption_requests"
    var text =
      "# HELP \(name) Refund requests (CONSUMPTION_REQUEST) by state; answered ones by "
      + "timeliness and Apple's decision after the answer.\n# TYPE \(name) gauge\n"
    for (app, metrics) in apps {
      let rows: [(String, Int)] = [
        ("state=\"pending\"", metrics.pending),
        ("state=\"answered\",timeliness=\"in_time\"", metrics.answeredInTime),
        ("state=\"answered\",timeliness=\"late\"", metrics.late),
        ("state=\"expired\"", metrics.expired), ("state=\"failed\"", metrics.failed),
        ("state=\"skipped\"", metrics.skipped),
      ]
      for (labels, value) in rows { text += "\(name){\(app)\(labels)} \(value)\n" }
    }
    let decided = "storeledger_consumption_decisions"
    text +=
      "# HELP \(decided) Apple's decisions on requests StoreLedger answered.\n"
      + "# TYPE \(decided) gauge\n"
    for (app, metrics) in apps {
      text +=
        "\(decided){\(app)decision=\"refunded\"} \(metrics.refundedAfterAnswer)\n"
        + "\(decided){\(app)decision=\"declined\"} \(metrics.declinedAfterAnswer)\n"
    }
    return text
  }

  /// Counts one HTTP request of `app` by method, route (as routed, never with its values) and
  /// status: the server's middleware records every request here.
  public func request(app: String, method: String, route: String, status: Int) {
    counter(
      Self.requestsFamily, app: app,
      ["method": method, "route": route, "status": String(status)]
    ).increment()
    if route.hasSuffix(IngestController.webhookPath), status >= 300 {
      state.withLock { Self.note(&$0.recentWebhookErrors[app, default: []]) }
    }
  }

  /// Keeps the last 24 hours (at most 100,000 instants).
  private static func note(_ instants: inout [Date], at now: Date = Date()) {
    instants.append(now)
    if instants.count > 100_000
      || instants.first.map({ now.timeIntervalSince($0) > 86_400 }) == true
    {
      instants.removeAll { now.timeIntervalSince($0) > 86_400 }
      if instants.count > 100_000 { instants.removeFirst(instants.count - 100_000) }
    }
  }

  /// Verification failures and webhook errors (answers other than 2xx) of `app` in the last
  /// 24 hours, and its projector's progress when it runs here.
  func recent(app: String, now: Date = Date()) -> (
    verificationFailures: Int, webhookErrors: Int, projector: AccountProjector.Progress?
  ) {
    let (failures, errors) = state.withLock { state in
      (state.recentFailures[app] ?? [], state.recentWebhookErrors[app] ?? [])
    }
    let recent = { (instants: [Date]) in
      instants.filter { now.timeIntervalSince($0) <= 86_400 }.count
    }
    return (recent(failures), recent(errors), attached.withLock { $0[app]?.projector?.progress })
  }

  /// One ingest (`kind`: notification, transaction, link, debit) and how it ended.
  func ingest(app: String, kind: String, outcome: String, notificationType: String?) {
    counter(
      Self.ingestsFamily, app: app,
      ["kind": kind, "outcome": outcome, "notification_type": notificationType ?? ""]
    ).increment()
  }

  func authenticationAlarm(app: String, kind: AuthenticationThrottle.Kind) {
    counter(Self.authenticationFamily, app: app, ["kind": kind.rawValue]).increment()
  }

  func verificationFailure(app: String, code: String) {
    counter(Self.failuresFamily, app: app, ["code": code]).increment()
    state.withLock { Self.note(&$0.recentFailures[app, default: []]) }
  }

  func append(app: String, duration: Duration) {
    let timer =
      timers.withLock { $0[app] }
      ?? Metrics.Timer(
        label: Self.appendFamily, dimensions: dimensions(app: app, [:]), factory: factory)
    timers.withLock { $0[app] = timer }
    timer.record(duration: duration)
  }

  /// The exposition text.
  public func render() -> String {
    let state = self.state.withLock { $0 }
    var text = registry.emitToString()
    let projectors = apps.compactMap { app in
      app.attached.projector.map { (Self.appLabel(state.labelsApps ? app.name : nil), $0.progress) }
    }
    if !projectors.isEmpty { text += projectorFamilies(projectors) }
    let replicas = apps.compactMap { app in
      app.attached.ledger?.storage.replicas.map {
        (Self.appLabel(state.labelsApps ? app.name : nil), $0.statuses)
      }
    }
    if !replicas.isEmpty { text += Self.replicaFamilies(replicas) }
    let hosts = apps.compactMap { app in
      app.attached.ledger?.storage.hosts.flatMap { $0.asks ? $0 : nil }.map {
        (Self.appLabel(state.labelsApps ? app.name : nil), $0)
      }
    }
    if !hosts.isEmpty { text += Self.primaryFamilies(hosts) }
    return text
  }
}

/// One app's ingest counters: what its controllers record.
struct AppMetrics: Sendable {
  let server: ServerMetrics
  let app: String

  func ingest(kind: String, outcome: String, notificationType: String? = nil) {
    server.ingest(app: app, kind: kind, outcome: outcome, notificationType: notificationType)
  }

  func verificationFailure(code: String) {
    server.verificationFailure(app: app, code: code)
  }

  func append(duration: Duration) {
    server.append(app: app, duration: duration)
  }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
