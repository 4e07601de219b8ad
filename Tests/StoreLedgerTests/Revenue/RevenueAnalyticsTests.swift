import AppStoreSimulator
import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The revenue analytics (`storeledger_analytics`) answer exactly what folding the log
/// answers, on PostgreSQL and in memory, after a rebuild too; PostgreSQL's `daily_metrics`
/// function agrees with the library's daily figures; pages by position cover every chain once.
@Suite struct RevenueAnalyticsTests {
  static let configuration = SimulationConfiguration(customers: 60, months: 12, seed: 41)

  /// A simulated year's notifications, ingested as Apple delivered them.
  static func simulatedYear(into ledger: Ledger) async throws -> Simulation {
    let simulation = Simulation(configuration)
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
      signer: LedgerTests.pki, now: configuration.start)
    simulation.apply(to: store, through: configuration.end)
    for notification in store.notifications() {
      _ = try await ledger.ingest(notification: notification.signedPayload)
    }
    return simulation
  }

  static func ledgerConfiguration() -> LedgerConfiguration {
    LedgerConfiguration(
      bundleId: SignedFixtures.bundleId, environments: [.sandbox],
      trustedRoots: LedgerTests.pki.trustedRoots)
  }

  static func queries(now: Timestamp) throws -> [MetricsQuery] {
    let from = MetricsCalendar.start(of: .month, holding: configuration.start)
    let to = MetricsCalendar.next(
      .month, after: MetricsCalendar.start(of: .month, holding: configuration.end))
    return [
      try MetricsQuery(
        from: from, to: to, granularity: .month, grouping: [.product, .offer], now: now,
        cohorts: true),
      try MetricsQuery(from: from, to: to, granularity: .day, now: now),
      try MetricsQuery(from: from, to: to, granularity: .week, grouping: [.storefront], now: now),
      try MetricsQuery(
        at: Timestamp(milliseconds: configuration.end.milliseconds - 86_400_000 * 40), now: now),
    ]
  }

  @Test(arguments: StorageKind.allCases)
  func theAnalyticsAnswerWhatTheLogAnswers(_ kind: StorageKind) async throws {
    try await kind.withLedger(Self.ledgerConfiguration()) { ledger in
      _ = try await Self.simulatedYear(into: ledger)
      let metrics = LedgerMetrics(ledger: ledger, pageSize: 7)
      let projector = RevenueProjector(ledger: ledger, batchSize: 50, logger: TestDatabase.logger)
      let events = try await projector.catchUp()
      #expect(events > 500)
      #expect(try await projector.catchUp() == 0)
      for query in try Self.queries(now: Self.configuration.end) {
        let folded = try await metrics.report(query, from: .log)
        let analytics = try await metrics.report(query, from: .analytics)
        #expect(!folded.rows.isEmpty)
        #expect(analytics == folded, "\(query.granularity) \(query.isInstant)")
      }
      // Made again from the log: the same rows.
      var before: [ChainRevenue] = []
      try await metrics.forEachRevenuePage(after: .beginning) { before += $0 }
      try await projector.rebuild()
      var after: [ChainRevenue] = []
      try await metrics.forEachRevenuePage(after: .beginning) { after += $0 }
      #expect(after.map(\.chain).sorted() == before.map(\.chain).sorted())
      #expect(Set(after.map(\.chain)).count == after.count, "each chain once")
      #expect(
        Dictionary(uniqueKeysWithValues: after.map { ($0.chain, $0.timelines) })
          == Dictionary(uniqueKeysWithValues: before.map { ($0.chain, $0.timelines) }))
      // A page boundary in the middle: going on after its last position misses nothing.
      let half = after.sorted { $0.position < $1.position }[after.count / 2].position
      var rest: [ChainRevenue] = []
      try await metrics.forEachRevenuePage(after: half) { rest += $0 }
      #expect(rest.count == after.filter { $0.position > half }.count)
    }
  }

  @Test func theDailyMetricsFunctionAgreesWithTheLibrary() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let ledger = try Ledger(
          client: client, configuration: Self.ledgerConfiguration(),
          logger: TestDatabase.logger)
        _ = try await Self.simulatedYear(into: ledger)
        try await RevenueProjector(ledger: ledger, logger: TestDatabase.logger).catchUp()
        let from = Timestamp(milliseconds: Self.configuration.start.milliseconds + 86_400_000 * 60)
        let to = Timestamp(milliseconds: from.milliseconds + 86_400_000 * 45)
        let first = MetricsCalendar.start(of: .day, holding: from)
        let last = Timestamp(
          milliseconds: MetricsCalendar.start(of: .day, holding: to).milliseconds - 1)
        // The function counts ends up to now(); the library's horizon is the same instant.
        let query = try MetricsQuery(
          from: first, to: MetricsCalendar.start(of: .day, holding: to), granularity: .day,
          now: Timestamp(Date()))
        let report = try await LedgerMetrics(ledger: ledger).report(query, from: .log)
        let rows = try await client.query(
          """
          SELECT day::text, currency, environment, active_subscriptions, active_trials, mrr,
                 new_subscriptions, trial_starts, trial_conversions, reactivations,
                 churn_voluntary + churn_billing + churn_refund + churn_other, transactions,
                 gross_revenue, refunds, refund_amount, net_revenue, estimated_proceeds
            FROM storeledger_analytics.daily_metrics(
              \(MetricsCalendar.dateText(first))::date, \(MetricsCalendar.dateText(last))::date)
          """, logger: TestDatabase.logger
        ) { rows in
          var found: [String: [Int64]] = [:]
          for try await row in rows.decode(
            (
              String, String, String, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64,
              Int64, Int64, Int64, Int64, Int64, Int64
            ).self)
          {
            found["\(row.0) \(row.1) \(row.2)"] = [
              row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12, row.13,
              row.14, row.15, row.16,
            ]
          }
          return found
        }
        var library: [String: [Int64]] = [:]
        for row in report.rows {
          let f = row.figures
          let values = [
            f.activeSubscriptions, f.activeTrials, f.mrr, f.newSubscriptions, f.trialStarts,
            f.trialConversions, f.reactivations, f.churned, f.transactions, f.grossRevenue,
            f.refunds, f.refundAmount, f.netRevenue, f.estimatedProceeds,
          ]
          // Rows with only a previous day's actives (activeAtStart) say nothing the function
          // lists.
          guard values.contains(where: { $0 != 0 }) else { continue }
          library["\(MetricsCalendar.dateText(row.start)) \(row.currency) \(row.environment)"] =
            values
        }
        #expect(!library.isEmpty)
        #expect(rows == library)
      }
    }
  }
}
