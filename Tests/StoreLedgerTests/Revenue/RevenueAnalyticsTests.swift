import AppStoreSimulator
import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Synchronization
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
      // A chain's rows the log no longer holds (with a timeline's rows under it) go too.
      let stale = ChainRevenue(
        chain: "sub:stale", position: before[0].position, recordedAt: before[0].recordedAt,
        timelines: before[0].timelines)
      try await ledger.storage.revenue.storeRevenue([stale])
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

  /// Given a year of notifications but the last ten; when those ten arrive after the rebuild
  /// has projected the chains they belong to; then the analytics still answer what the log
  /// answers, and the projector has nothing left to follow.
  @Test(arguments: StorageKind.allCases)
  func notificationsArrivingDuringARebuildAreProjected(_ kind: StorageKind) async throws {
    try await kind.withLedger(Self.ledgerConfiguration()) { ledger in
      let simulation = Simulation(Self.configuration)
      let store = SimulatedAppStore(
        app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
        signer: LedgerTests.pki, now: Self.configuration.start)
      simulation.apply(to: store, through: Self.configuration.end)
      let notifications = store.notifications().map(\.signedPayload)
      for payload in notifications.dropLast(10) {
        _ = try await ledger.ingest(notification: payload)
      }
      let late = LateArrivals(base: ledger.storage.log) {
        for payload in notifications.suffix(10) {
          _ = try await ledger.ingest(notification: payload)
        }
      }
      let projector = RevenueProjector(
        log: late, revenue: ledger.storage.revenue, pageSize: 3, logger: TestDatabase.logger)
      let events = try await projector.rebuild(concurrency: 1)
      #expect(late.arrived.withLock { $0 })
      #expect(try await projector.catchUp() == 0)
      #expect(events > 500)
      let metrics = LedgerMetrics(ledger: ledger, pageSize: 7)
      for query in try Self.queries(now: Self.configuration.end) {
        let analytics = try await metrics.report(query, from: .analytics)
        #expect(analytics == (try await metrics.report(query, from: .log)))
      }
    }
  }

  /// A ledger on `client` holding the simulated year.
  static func simulatedLedger(on client: PostgresClient) async throws -> Ledger {
    let ledger = try Ledger(
      client: client, configuration: ledgerConfiguration(), logger: TestDatabase.logger)
    _ = try await simulatedYear(into: ledger)
    return ledger
  }

  /// Every chain's stored analytics rows, in the order of their feed positions.
  static func storedRows(_ ledger: Ledger) async throws -> [ChainRevenue] {
    var rows: [ChainRevenue] = []
    try await LedgerMetrics(ledger: ledger).forEachRevenuePage(after: .beginning) { rows += $0 }
    return rows
  }

  /// Given a database whose schema lacks what this release calls; when the analytics are
  /// made again; then the refusal says to migrate, and the rows are as they were.
  @Test func aSchemaOlderThanTheReleaseIsSaidToNeedItsMigrations() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asAdmin { admin in
        try await database.asWriter { client in
          let ledger = try await Self.simulatedLedger(on: client)
          let projector = RevenueProjector(ledger: ledger, logger: TestDatabase.logger)
          try await projector.catchUp()
          let before = try await Self.storedRows(ledger)
          try await admin.execute(
            "DROP FUNCTION storeledger_analytics.clear_revenue()", logger: TestDatabase.logger)
          let refused = await #expect(throws: LedgerError.self) { try await projector.rebuild() }
          #expect(refused?.code == .databaseRejected)
          #expect(refused?.message.contains("storeledger migrate") == true)
          let after = try await Self.storedRows(ledger)
          #expect(!before.isEmpty && after == before)
        }
      }
    }
  }

  @Test func theDailyMetricsFunctionAgreesWithTheLibrary() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let ledger = try await Self.simulatedLedger(on: client)
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

/// The log, but `arrive` runs once, when the listing of stream ids comes to its end: after a
/// rebuild has read the feed's head and projected the chains of every page but the last.
private final class LateArrivals: EventLog {
  let base: any EventLog
  let arrive: @Sendable () async throws -> Void
  let arrived = Mutex(false)

  init(base: any EventLog, arrive: @escaping @Sendable () async throws -> Void) {
    self.base = base
    self.arrive = arrive
  }

  func streamIds(prefixed prefix: String, after streamId: String, limit: Int)
    async throws(EventStoreError) -> [String]
  {
    let ids = try await base.streamIds(prefixed: prefix, after: streamId, limit: limit)
    if ids.isEmpty, !arrived.withLock({ $0 }) {
      arrived.withLock { $0 = true }
      do { try await arrive() } catch { throw EventStoreError(.databaseRejected, "\(error)") }
    }
    return ids
  }

  func append(_ events: [NewEvent], to stream: String, indexing index: StreamIndex?)
    async throws(EventStoreError) -> AppendResult
  { try await base.append(events, to: stream, indexing: index) }
  func append(
    to stream: String, indexing index: StreamIndex?, decidingOver account: String,
    _ decide: @escaping @Sendable ([LedgerEvent]) throws -> [NewEvent]
  ) async throws(EventStoreError) -> AppendResult {
    try await base.append(to: stream, indexing: index, decidingOver: account, decide)
  }
  func appendBatch(_ items: [BatchAppend]) async throws(EventStoreError) -> [AppendResult] {
    try await base.appendBatch(items)
  }
  func append(_ events: [NewEvent], to stream: String, expected: ExpectedVersion)
    async throws(EventStoreError) -> AppendResult
  { try await base.append(events, to: stream, expected: expected) }
  func readStreams(_ streams: [String]) async throws(EventStoreError) -> [RecordedEvent] {
    try await base.readStreams(streams)
  }
  func readStreamFoldRows(_ streams: [String]) async throws(EventStoreError) -> [StreamFoldRow] {
    try await base.readStreamFoldRows(streams)
  }
  func readFeedEntries(after position: FeedPosition, limit: Int) async throws(EventStoreError)
    -> [FeedEntry]
  { try await base.readFeedEntries(after: position, limit: limit) }
  func feedHead() async throws(EventStoreError) -> FeedPosition? { try await base.feedHead() }
  func checkpoint(_ name: String) async throws(EventStoreError) -> FeedPosition? {
    try await base.checkpoint(name)
  }
  func moveCheckpoint(_ name: String, from expected: FeedPosition?, to position: FeedPosition)
    async throws(EventStoreError)
  { try await base.moveCheckpoint(name, from: expected, to: position) }
}
