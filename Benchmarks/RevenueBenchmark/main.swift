import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

// Revenue benchmark: one year of daily metrics over N subscriptions from the revenue
// analytics (storeledger_analytics), next to the same aggregate written as one plain SQL query
// over a flat table, round by round in one run; peak memory of the library's answer. Then the
// revenue projector's delay behind a sustained append rate.
// Needs a PostgreSQL superuser URL (scripts/bench-revenue starts a throwaway cluster).
// Usage: RevenueBenchmark --database-url URL [--subscriptions 1000000] [--rounds 3]

struct Options {
  var databaseURL = ProcessInfo.processInfo.environment["STORELEDGER_TEST_DATABASE_URL"]
  var subscriptions = 1_000_000
  var rounds = 3

  init(_ arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--database-url": databaseURL = iterator.next()
      case "--subscriptions":
        subscriptions = iterator.next().flatMap(Int.init) ?? subscriptions
      case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
      default:
        FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
        exit(2)
      }
    }
  }
}

let options = Options(CommandLine.arguments)
guard let urlText = options.databaseURL else {
  FileHandle.standardError.write(Data("pass --database-url postgres://superuser@…\n".utf8))
  exit(2)
}
let logger = {
  var logger = Logger(label: "storeledger.revenue-benchmark")
  logger.logLevel = .error
  return logger
}()
enum Bench {
  static let day: Int64 = 86_400_000
  static let year = Timestamp(milliseconds: 1_767_225_600_000)  // 2026-01-01
  static let yearEnd = Timestamp(milliseconds: 1_798_761_600_000)  // 2027-01-01

  /// A subscription's rows as the rules make them: monthly periods from a day of the year, some
  /// after a free week, some refunded, an end with its reason when it ended within the year.
  static func timeline(_ index: Int, random: inout SeededRandom) -> RevenueTimeline {
    let id = String(2_000_000_000_000_000 + index)
    let product = ["pro.monthly", "pro.plus.monthly", "pro.basic.monthly"][index % 3]
    let price: Int64 = [9_990, 10_990, 4_990][index % 3]
    let currency = index % 10 < 7 ? "USD" : (index % 10 < 9 ? "EUR" : "JPY")
    let attributes = MetricsAttributes(
      productId: product, subscriptionGroup: "21482000", storefront: "USA", currency: currency,
      environment: "Production", offer: "none")
    var start = year.milliseconds + day * Int64(random.int(0..<365))
    var segments: [RevenueSegment] = []
    var entries: [RevenueEntry] = []
    func entry(_ kind: RevenueEntry.Kind, _ at: Int64, _ amount: Int64 = 0, _ tid: String = id) {
      entries.append(
        RevenueEntry(
          kind: kind, date: Timestamp(milliseconds: at), amount: amount,
          proceeds: amount * 7 / 10, transactionId: tid, originalTransactionId: id,
          attributes: attributes))
    }
    entry(.newSubscription, start)
    if random.chance(0.2) {
      segments.append(
        RevenueSegment(
          originalTransactionId: id, transactionId: id, start: Timestamp(milliseconds: start),
          end: Timestamp(milliseconds: start + 7 * day), isTrial: true, monthlyValue: 0, seats: 0,
          attributes: attributes))
      entry(.trialStarted, start)
      start += 7 * day
      entry(.trialConverted, start)
    }
    let months = random.int(1..<13)
    for month in 0..<months {
      let from = start + Int64(month) * 30 * day
      let tid = "\(id)-\(month)"
      segments.append(
        RevenueSegment(
          originalTransactionId: id, transactionId: tid, start: Timestamp(milliseconds: from),
          end: Timestamp(milliseconds: from + 30 * day), isTrial: false,
          monthlyValue: price * 2_629_746_000 / (30 * day), seats: 0, attributes: attributes))
      entry(month == 0 ? .purchase : .renewal, from, price, tid)
    }
    let end = start + Int64(months) * 30 * day
    if random.chance(0.05) { entry(.refund, end - 10 * day, price, "\(id)-\(months - 1)") }
    entry([.churnVoluntary, .churnBilling, .churnOther][index % 3], end)
    return RevenueTimeline(
      originalTransactionId: id, isSubscription: true,
      firstStart: segments.first?.start, segments: segments, entries: entries)
  }

  /// The same aggregate the analytics answer, written as one plain query over one flat table:
  /// every period and every dated entry in one row shape.
  static let plainQuery = """
    WITH days AS (
      SELECT d::date AS day, d + interval '1 day' - interval '1 millisecond' AS instant
        FROM generate_series(timestamp '2026-01-01', timestamp '2026-12-31', interval '1 day') d),
    stocks AS (
      SELECT days.day, f.currency, count(*) FILTER (WHERE NOT f.is_trial) AS active,
             count(*) FILTER (WHERE f.is_trial) AS trials,
             coalesce(sum(f.monthly_value) FILTER (WHERE NOT f.is_trial), 0) AS mrr
        FROM days JOIN bench_flat f
          ON f.kind = 'period' AND f.starts_at <= days.instant AND f.ends_at > days.instant
       GROUP BY 1, 2),
    flows AS (
      SELECT f.occurred_at::date AS day, f.currency,
             count(*) FILTER (WHERE f.kind IN ('purchase', 'renewal')) AS transactions,
             coalesce(sum(f.amount) FILTER (WHERE f.kind IN ('purchase', 'renewal')), 0) AS gross,
             count(*) FILTER (WHERE f.kind LIKE 'churn%') AS churned,
             count(*) FILTER (WHERE f.kind = 'new_subscription') AS new
        FROM bench_flat f
       WHERE f.kind <> 'period' AND f.occurred_at >= timestamp '2026-01-01'
         AND f.occurred_at < timestamp '2027-01-01'
       GROUP BY 1, 2)
    SELECT count(*) FROM stocks s FULL JOIN flows f USING (day, currency)
    """

  static func peakMemoryMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
    else { return 0 }
    return kilobytes / 1024
  }

  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

}

let server = try DatabaseURL(urlText)
let database = try await BenchmarkDatabase.create(on: server, setupSQL: [], logger: logger)
do {
  try await database.withWriter { client in
    let storage = PostgresLedgerDatabase(client: client, logger: logger, timeout: .seconds(600))
    let seedStart = ContinuousClock.now
    var random = SeededRandom(seed: 2026)
    var batch: [ChainRevenue] = []
    var periods = 0
    var entries = 0
    for index in 0..<options.subscriptions {
      let timeline = Bench.timeline(index, random: &random)
      periods += timeline.segments.count
      entries += timeline.entries.count
      batch.append(
        ChainRevenue(
          chain: "sub:Production:\(timeline.originalTransactionId)",
          position: FeedPosition(transactionId: UInt64(index + 1), sequence: 0),
          recordedAt: Date(), timelines: [timeline]))
      if batch.count == 2_000 {
        try await storage.storeRevenue(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    try await storage.storeRevenue(batch)
    print(
      "seeded \(options.subscriptions) subscriptions: \(periods) periods, \(entries) entries in "
        + String(format: "%.0f s", Bench.seconds(ContinuousClock.now - seedStart)))
  }
  // The flat table the plain query reads, made and analyzed by the superuser.
  try await PostgresClient.withRunningClient(
    server.with(database: database.name), logger: logger
  ) { client in
    try await client.execute(
      """
      CREATE TABLE bench_flat AS
        SELECT 'period'::text AS kind, starts_at, ends_at, NULL::timestamptz AS occurred_at,
               monthly_value, is_trial, 0::bigint AS amount, currency
          FROM storeledger_analytics.periods
        UNION ALL
        SELECT kind, NULL, NULL, occurred_at, 0, false, amount, currency
          FROM storeledger_analytics.entries
      """, logger: logger)
    try await client.execute(
      "CREATE INDEX ON bench_flat (kind, starts_at, ends_at)", logger: logger)
    try await client.execute("CREATE INDEX ON bench_flat (occurred_at)", logger: logger)
    try await client.execute("ANALYZE", logger: logger)
    try await client.execute("GRANT SELECT ON bench_flat TO storeledger_writer", logger: logger)
  }
  try await database.withWriter { client in
    let ledger = try Ledger(
      client: client,
      configuration: LedgerConfiguration(bundleId: "com.example.app", environments: [.sandbox]),
      logger: logger)
    let metrics = LedgerMetrics(ledger: ledger, pageSize: 2_000)
    let query = try MetricsQuery(
      from: Bench.year, to: Bench.yearEnd, granularity: .day, now: Bench.yearEnd)
    var ratios: [Double] = []
    var functionRatios: [Double] = []
    for round in 1...options.rounds {
      let plainStart = ContinuousClock.now
      _ = try await client.execute(PostgresQuery(unsafeSQL: Bench.plainQuery), logger: logger)
      let plain = Bench.seconds(ContinuousClock.now - plainStart)
      let functionStart = ContinuousClock.now
      _ = try await client.execute(
        "SELECT count(*) FROM storeledger_analytics.daily_metrics('2026-01-01', '2026-12-31')",
        logger: logger)
      let function = Bench.seconds(ContinuousClock.now - functionStart)
      let libraryStart = ContinuousClock.now
      let report = try await metrics.report(query, from: .analytics)
      let library = Bench.seconds(ContinuousClock.now - libraryStart)
      ratios.append(plain / library)
      functionRatios.append(plain / function)
      print(
        "round \(round): plain SQL \(String(format: "%.2f", plain)) s, "
          + "storeledger_analytics.daily_metrics \(String(format: "%.2f", function)) s, "
          + "LedgerMetrics \(String(format: "%.2f", library)) s (\(report.rows.count) rows); "
          + "speed vs plain SQL: library \(String(format: "%.2f", plain / library)), "
          + "function \(String(format: "%.2f", plain / function))")
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    print(
      "median speed vs one plain SQL query over a flat table: LedgerMetrics "
        + String(format: "%.2f", median(ratios)) + ", daily_metrics function "
        + String(format: "%.2f", median(functionRatios)) + " (target ≥ 0.5); peak memory "
        + String(format: "%.0f MB", Bench.peakMemoryMegabytes()))
  }
  try await database.drop()
} catch {
  try? await database.drop()
  throw error
}
