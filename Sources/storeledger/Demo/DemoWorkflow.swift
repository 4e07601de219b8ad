import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// The demo's stages, in order, each timed and shown with a progress bar.
struct DemoWorkflow: Service {
  let settings: DemoRun.Settings
  let database: DatabaseURL
  let ledgerConfiguration: LedgerConfiguration
  let simulation: Simulation
  let store: SimulatedAppStore
  let pki: TestPKI
  let apiKey: APIKey
  let bearer: String
  let ports: PortsBox
  let logger: Logger
  let result = ResultBox()
  let migrated = MigratedBox()

  func run() async throws {
    do {
      try await cancelWhenGracefulShutdown {
        let (server, simulator) = try await ports.both()
        let summary = try await PostgresClient.withRunningClient(database, logger: logger) {
          client in
          let ledger = try Ledger(
            client: client, configuration: ledgerConfiguration, logger: logger)
          return try await stages(ledger: ledger, server: server, simulator: simulator)
        }
        result.set(summary)
        if let onServing = settings.onServing {
          // --keep: the console stays open on the demo's customers until Ctrl-C.
          onServing(summary, "http://127.0.0.1:\(server)/console", bearer)
          try await gracefulShutdown()
        }
      }
    } catch {
      // Ctrl-C or SIGTERM: the group is shutting down; leaving without a summary says so.
      guard Task.isCancelled || error is CancellationError else { throw error }
    }
  }

  private func stages(ledger: Ledger, server: Int, simulator: Int) async throws -> DemoSummary {
    let configuration = simulation.configuration
    var summary = DemoSummary(
      customers: settings.customers, months: settings.months, seed: settings.seed,
      asOf: configuration.end.milliseconds)
    // Windows are on Apple's clock: the outage is the year's last 30 days.
    summary.grants.outageFrom = configuration.end.milliseconds - 30 * 86_400_000
    summary.grants.outageBefore = configuration.end.milliseconds
    let retry = DemoBillingRetry(
      ledger: ledger, simulation: simulation, store: store, logger: logger)
    (summary.billingRetry.from, summary.billingRetry.before) = (
      retry.window.from.milliseconds, retry.window.before.milliseconds
    )
    try DemoInterruption.check()
    // The backend that learns what changed: a receiver, and the ledger delivering to it.
    let receiver = DemoChangeReceiver()
    let logger = self.logger
    // Stopped by cancellation when the demo ends: its server's farewell is not an error.
    let receiving = Task { try await receiver.serve(logger: DemoRun.silent) }
    defer { receiving.cancel() }
    let endpoint = try ChangeEndpoint(
      url: try await receiver.url(), secret: DemoChangeReceiver.secret)
    let deliverer = ChangeDeliverer(
      ledger: ledger, configuration: ChangeDeliveryConfiguration(endpoints: [endpoint]),
      logger: logger)
    try await deliverer.register()
    let delivering = Task { await deliverer.run() }
    defer { delivering.cancel() }
    // A staging backend receives every notification as Apple sent it (the server relays).
    _ = try await Relays(ledger: ledger).add(
      name: summary.relayed.target, url: try await receiver.stagingURL(), by: "demo")
    try await deliver(to: "http://127.0.0.1:\(server)/v1/notifications/appstore", into: &summary)
    summary.billingRetry.stages.append(try await retry.check(after: "year"))
    try DemoInterruption.check()
    let api = try apiClient(port: simulator)
    try await repair(ledger: ledger, api: api, retry: retry, into: &summary)
    try await answerRefunds(
      ledger: ledger, api: api, server: server, into: &summary)
    try await actOnApple(ledger: ledger, api: api, server: server, into: &summary)
    try await claimSeats(ledger: ledger, api: api, server: server, into: &summary)
    try await grantAfterOutage(ledger: ledger, into: &summary)
    let (projected, seconds) = try await timed("projecting") {
      try await AccountProjector(ledger: ledger, logger: logger).catchUp()
    }
    record(
      "projecting", seconds, "\(projected.grouped) events projected into account views",
      into: &summary)
    try await awaitRelays(ledger: ledger, receiver: receiver, into: &summary)
    try await audit(ledger: ledger, into: &summary)
    try await query(port: server, ledger: ledger, into: &summary)
    try await awaitChanges(ledger: ledger, receiver: receiver, into: &summary)
    try await sumUp(ledger: ledger, into: &summary)
    try await revenue(ledger: ledger, into: &summary)
    return summary
  }

  /// Plays the customers in compressed time; the deliverer posts every notification to the
  /// webhook with the configured faults.
  private func deliver(to webhook: String, into summary: inout DemoSummary) async throws {
    let day = Duration.milliseconds(Int64(settings.daySeconds * 1000))
    let deliverer = NotificationDeliverer(
      store: store, webhookURL: webhook, hour: day / 24,
      faults: DeliveryFaults(
        dropFraction: settings.drop, duplicateFraction: settings.duplicate, reorder: true,
        seed: settings.seed),
      logger: logger)
    let runner = SimulationRunner(
      simulation: simulation, store: store, deliverer: deliverer, day: day)
    let bar = ProgressBar("simulating ", enabled: !settings.quiet)
    let started = ContinuousClock.now
    try await runner.run { progress in
      bar.update(
        progress.month, of: progress.months,
        "months  \(progress.notifications.grouped) notifications, "
          + "\(progress.delivered.grouped) delivered", force: progress.isFinal)
    }
    bar.finish()
    let seconds = (ContinuousClock.now - started).seconds
    let notifications = store.notifications()
    summary.notifications = notifications.count
    summary.delivered = notifications.filter(\.delivered).count
    summary.dropped = summary.notifications - summary.delivered
    let requests = notifications.reduce(0) { total, notification in
      total + notification.attempts.filter { $0.sendAttemptResult == .success }.count
    }
    summary.ingest = .init(count: requests, seconds: seconds)
    record(
      "simulating", seconds,
      "\(settings.customers.grouped) customers, \(summary.notifications.grouped) notifications: "
        + "\(summary.delivered.grouped) delivered through the webhook, "
        + "\(summary.dropped.grouped) lost", into: &summary)
  }

  /// Replays every known customer from Transaction History, then recovers the notifications
  /// of customers the log never heard of from Notification History.
  private func repair(
    ledger: Ledger, api: AppStoreServerAPIClient, retry: DemoBillingRetry,
    into summary: inout DemoSummary
  ) async throws {
    let bar = ProgressBar("replaying  ", enabled: !settings.quiet)
    let replay = CustomerReplay(
      ledger: ledger, client: api, environment: .sandbox, concurrency: 8, logger: logger)
    let started = ContinuousClock.now
    let replayed = try await replay.replay(.everyone) { progress in
      bar.update(
        progress.customers, of: nil,
        "customers  \(progress.transactionsFetched.grouped) transactions fetched, "
          + "\(progress.appended.grouped) appended")
    }
    bar.finish()
    summary.replayAppended = replayed.appended
    record(
      "replaying", (ContinuousClock.now - started).seconds,
      "\(replayed.customers.grouped) customers from Transaction History: "
        + "\(replayed.appended.grouped) events appended, \(replayed.alreadyStored.grouped) "
        + "already stored", into: &summary)
    summary.billingRetry.stages.append(try await retry.check(after: "replay"))
    let (recovered, seconds) = try await timed("recovering") {
      try await NotificationRecovery(ledger: ledger, client: api, logger: logger).recover(
        from: simulation.configuration.start.date.addingTimeInterval(-86_400),
        to: store.now.date.addingTimeInterval(86_400))
    }
    summary.recoveryAppended = recovered.appended
    record(
      "recovering", seconds,
      "\(recovered.found.grouped) undelivered notifications in Notification History, "
        + "\(recovered.appended.grouped) of them new to the log", into: &summary)
    summary.billingRetry.stages.append(try await retry.check(after: "recovery"))
  }

  /// Customers ask for refunds; the ledger answers Apple's requests by the demo's policy.
  private func answerRefunds(
    ledger: Ledger, api: AppStoreServerAPIClient, server: Int, into summary: inout DemoSummary
  ) async throws {
    let refunds = DemoRefunds(
      store: store, ledger: ledger, api: api,
      webhook: "http://127.0.0.1:\(server)/v1/notifications/appstore", port: server,
      bearer: bearer, count: max(3, settings.customers / 25), logger: logger)
    let (consumption, seconds) = try await timed("refunds") { try await refunds.run() }
    summary.consumption = consumption
    record(
      "refunds", seconds,
      "\(consumption.received) refund requests: \(consumption.answered) answered "
        + "(\(consumption.late) late); Apple refunded \(consumption.refunded), "
        + "declined \(consumption.declined)", into: &summary)
  }

  /// Receipts migrated, an extension for every active subscriber, an order lookup.
  /// Seats of the group subscriptions, and the notifications this release does not
  /// understand.
  private func claimSeats(
    ledger: Ledger, api: AppStoreServerAPIClient, server: Int, into summary: inout DemoSummary
  ) async throws {
    let stage = DemoSeats(
      simulation: simulation, store: store, ledger: ledger, api: api,
      webhook: "http://127.0.0.1:\(server)/v1/notifications/appstore", logger: logger)
    let (seats, seconds) = try await timed("seats") { try await stage.run() }
    summary.seats = seats
    let notUnderstood = try await SupportQueries(ledger: ledger).notUnderstood(limit: 100_000)
    summary.notUnderstood = notUnderstood.count
    summary.unrouted = notUnderstood.filter { $0.isUnrouted && $0.routedTo == nil }.count
    record(
      "seats", seconds,
      "\(seats.claimed) seats claimed in \(seats.active) groups, \(seats.membersAgree) of "
        + "\(seats.members) members agree with the truth", into: &summary)
  }

  /// A bulk grant to everyone who entered billing retry in a declared outage; the views are
  /// projected first, so their status histories (what the grant selects) are complete.
  private func grantAfterOutage(ledger: Ledger, into summary: inout DemoSummary) async throws {
    let stage = DemoGrants(
      ledger: ledger, simulation: simulation, from: summary.grants.outageFrom,
      before: summary.grants.outageBefore, seed: settings.seed)
    let (grants, seconds) = try await timed("grants") { () async throws -> DemoSummary.Grants in
      _ = try await AccountProjector(ledger: ledger, logger: logger).catchUp()
      return try await stage.run()
    }
    summary.grants = grants
    record(
      "grants", seconds,
      "\(grants.granted) accounts granted a week of pro after an outage "
        + "(\(grants.enteredBillingRetry) entered billing retry in it, the books say "
        + "\(grants.booksAccounts); run again: "
        + "\(grants.grantedAgain) granted, \(grants.alreadyGranted) already granted)",
      into: &summary)
  }

  private func actOnApple(
    ledger: Ledger, api: AppStoreServerAPIClient, server: Int, into summary: inout DemoSummary
  ) async throws {
    let writeSide = DemoWriteSide(
      store: store, ledger: ledger, api: api, key: apiKey,
      webhook: "http://127.0.0.1:\(server)/v1/notifications/appstore",
      customers: simulation.truth.customers, seed: settings.seed, logger: logger)
    let (result, seconds) = try await timed("write side") { try await writeSide.run() }
    summary.migratedReceipts = result.receipts.migrated + result.receipts.alreadyKnown
    summary.migratedCustomers = result.migrated.values.sorted()
    migrated.set(result.migrated)
    summary.receiptFailures = result.receipts.outcomes.filter { $0.kind == .failed }.map {
      "receipt \($0.line): \($0.reason ?? "failed")"
    }
    summary.extensions = .init(
      requested: 1, succeeded: result.renewalExtension.succeededCount ?? 0,
      failed: result.renewalExtension.failedCount ?? 0,
      summariesStored: result.renewalExtension.summaryStored == true ? 1 : 0)
    // A lookup the Sandbox cannot answer was not made: it is said, not counted.
    summary.orderLookups = .init(
      asked: result.orderLookup.hasPrefix("skipped") ? 0 : 1, answer: result.orderLookup)
    summary.checks = .init(
      webhookCheckPassed: result.webhookCheck.passed,
      offerEligibilityChecked: result.offersChecked, offersSigned: result.offerSigned ? 1 : 0)
    record(
      "write side", seconds,
      "\(summary.migratedReceipts) customers migrated from receipts "
        + "(\(result.receipts.failed) failed), \(summary.extensions.succeeded) renewal dates "
        + "extended, order lookup "
        + (result.orderLookup.hasPrefix("skipped") ? "skipped (Sandbox)" : "done")
        + ", webhook check "
        + (result.webhookCheck.passed ? "passed" : "failed") + ", \(result.offersChecked) "
        + "accounts' offers read", into: &summary)
  }

  /// Every simulated month's revenue from the log, against the simulated store's books.
  private func revenue(ledger: Ledger, into summary: inout DemoSummary) async throws {
    let configuration = simulation.configuration
    let from = MetricsCalendar.start(of: .month, holding: configuration.start)
    let to = MetricsCalendar.next(
      .month, after: MetricsCalendar.start(of: .month, holding: store.lastSigned))
    let stage = DemoRevenue(store: store, ledger: ledger, from: from, to: to)
    let (metrics, seconds) = try await timed("revenue") { try await stage.run() }
    summary.metrics = metrics
    record(
      "revenue", seconds,
      "\(metrics.months) months × \(metrics.currencies.count) currencies from the log: "
        + "\(metrics.compared - metrics.differences.count) of \(metrics.compared) figures agree "
        + "with the simulated store's books", into: &summary)
  }

  private func audit(ledger: Ledger, into summary: inout DemoSummary) async throws {
    let (report, seconds) = try await timed("auditing") {
      try await LedgerMaintenance(ledger: ledger).audit()
    }
    summary.auditConsistent = report.isConsistent
    summary.auditProblems = report.problems.count
    summary.auditEvents = report.eventsChecked
    summary.auditSignatures = report.signaturesVerified
    summary.auditAccounts = report.accountsCompared
    record(
      "auditing", seconds,
      report.isConsistent
        ? "consistent: hash chains, \(report.signaturesVerified.grouped) signatures, "
          + "\(report.accountsCompared.grouped) account views"
        : "\(report.problems.count) problems", into: &summary)
  }

  /// Entitlement queries over HTTP, 16 at a time, across every account.
  private func query(port: Int, ledger: Ledger, into summary: inout DemoSummary) async throws {
    let tokens = try await SupportQueries(ledger: ledger).accountTokens(limit: 1_000_000)
    guard !tokens.isEmpty, settings.queries > 0 else { return }
    let (measured, seconds) = try await timed("querying") {
      try await DemoQueries(port: port, bearer: bearer, tokens: tokens, count: settings.queries)
        .run()
    }
    summary.queries = measured
    record(
      "querying", seconds,
      "\(measured.count.grouped) GET /v1/accounts/{token}/entitlements, 16 at a time",
      into: &summary)
  }
}

/// Where the workflow leaves its summary for the command.
final class ResultBox: Sendable {
  private let summary = Mutex<DemoSummary?>(nil)
  func set(_ value: DemoSummary) { summary.withLock { $0 = value } }
  var value: DemoSummary? { summary.withLock { $0 } }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The accounts the demo made from receipts, for the comparison with the truth.
final class MigratedBox: Sendable {
  private let tokens = Mutex<[String: String]>([:])
  var value: [String: String] { tokens.withLock { $0 } }
  func set(_ value: [String: String]) { tokens.withLock { $0 = value } }
}
