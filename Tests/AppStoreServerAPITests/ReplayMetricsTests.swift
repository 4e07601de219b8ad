import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Metrics do not depend on how the facts came: a simulated year's notifications, then the
/// replay of Get Transaction History and Get All Subscription Statuses recorded on top. When
/// every notification arrived, every figure of every month stays what the webhooks gave; when
/// some were lost, the replay moves exactly what they carried; either way `metrics diff`
/// between the two knowledge times lists exactly the figures that moved, with their values.
@Suite struct ReplayMetricsTests {
  typealias H = SimulatorHarness
  static let customers =
    Int(ProcessInfo.processInfo.environment["DIFFERENTIAL_CUSTOMERS"] ?? "") ?? 600

  @Test func theReplayMovesOnlyWhatTheDiffNames() async throws {
    let configuration = SimulationConfiguration(customers: Self.customers, months: 12, seed: 3_131)
    let (simulation, store) = H.year(configuration)
    let verifier = try H.verifier()
    var random = SeededRandom(seed: 13)
    let deliveries = try await DifferentialTruthTests.deliveries(of: store, verifier, &random)
    // Every notification arrives (the lost ones too): what history adds is all that differs.
    let webhooksKnown = configuration.end
    let replayKnown = Timestamp(milliseconds: configuration.end.milliseconds + 1)
    func recorded(_ events: [LedgerEvent], at time: Timestamp) -> [LedgerEvent] {
      events.map { event in
        var event = event
        event.recordedAt = time
        return event
      }
    }
    let replayed = recorded(
      try await DifferentialTruthTests.replay(simulation.truth, store, verifier), at: replayKnown)
    let all = recorded(deliveries.delivered + deliveries.lost, at: webhooksKnown)
    let moved = try Self.compare(all, replayed, configuration, webhooksKnown, replayKnown)
    // Nothing the webhooks carried is changed by hearing it again from history.
    #expect(moved == 0)
    let some = recorded(deliveries.delivered, at: webhooksKnown)
    #expect(deliveries.lost.count > 100)
    // What the lost notifications carried comes with the replay, and the diff says so.
    #expect(try Self.compare(some, replayed, configuration, webhooksKnown, replayKnown) > 0)
  }

  /// A cohort's `retained` at a month's end is the same test as `activeSubscriptions` at that
  /// instant: summed over the cohorts, they are equal for every month that has ended.
  @Test func cohortRetentionIsTheActiveCount() async throws {
    let configuration = SimulationConfiguration(customers: Self.customers, months: 12, seed: 4_242)
    let (_, store) = H.year(configuration)
    var random = SeededRandom(seed: 17)
    let deliveries = try await DifferentialTruthTests.deliveries(
      of: store, try H.verifier(), &random)
    let query = try MetricsQuery(
      from: MetricsCalendar.start(of: .month, holding: configuration.start),
      to: MetricsCalendar.next(
        .month, after: MetricsCalendar.start(of: .month, holding: configuration.end)),
      granularity: .month, now: configuration.end, cohorts: true)
    let report = try RevenueMetrics.report(
      of: deliveries.delivered + deliveries.lost, for: query)
    var active: [String: Int64] = [:]
    for row in report.rows where row.end <= configuration.end {
      active["\(MetricsCalendar.monthText(row.start)) \(row.environment)", default: 0] +=
        row.figures.activeSubscriptions
    }
    var retained: [String: Int64] = [:]
    for row in report.cohorts ?? [] {
      var month = try #require(InstantText.parse("\(row.cohort)-01"))
      for _ in 0..<row.month { month = MetricsCalendar.next(.month, after: month) }
      let key = "\(MetricsCalendar.monthText(month)) \(row.environment)"
      if active[key] != nil { retained[key, default: 0] += row.retained }
    }
    print("cohorts: \(active.count) ended months compared, \(active.values.reduce(0, +)) actives")
    #expect(active.count >= 10)
    #expect(active.values.reduce(0, +) > Int64(Self.customers))
    for (key, count) in active {
      #expect(retained[key, default: 0] == count, "\(key)")
    }
  }

  /// The figures `replayed` moves on top of `webhooks`, checked against `metrics diff`.
  static func compare(
    _ webhooks: [LedgerEvent], _ replayed: [LedgerEvent],
    _ configuration: SimulationConfiguration, _ webhooksKnown: Timestamp,
    _ replayKnown: Timestamp
  ) throws -> Int {
    let query = try MetricsQuery(
      from: MetricsCalendar.start(of: .month, holding: configuration.start),
      to: MetricsCalendar.next(
        .month, after: MetricsCalendar.start(of: .month, holding: configuration.end)),
      granularity: .month, now: configuration.end)
    let before = try RevenueMetrics.report(of: webhooks, for: query)
    let after = try RevenueMetrics.report(of: webhooks + replayed, for: query)

    // Every figure of every row, before and after.
    struct Cell: Hashable {
      var start: Int64
      var environment: String
      var currency: String
      var figure: String
    }
    func cells(_ report: MetricsReport) -> [Cell: Int64] {
      var found: [Cell: Int64] = [:]
      for row in report.rows {
        for name in MetricsFigures.figureNames {
          found[
            Cell(
              start: row.start.milliseconds, environment: row.environment,
              currency: row.currency, figure: name)] = MetricsFigures.value(name, of: row.figures)
        }
      }
      return found
    }
    let (old, new) = (cells(before), cells(after))
    var moved: [Cell: (Int64, Int64)] = [:]
    for cell in Set(old.keys).union(new.keys) where (old[cell] ?? 0) != (new[cell] ?? 0) {
      moved[cell] = (old[cell] ?? 0, new[cell] ?? 0)
    }

    let diff = try RevenueMetrics.diff(
      of: webhooks + replayed, for: query, knownAt: webhooksKnown, replayKnown)
    var listed: [Cell: (Int64, Int64)] = [:]
    for change in diff.changes {
      listed[
        Cell(
          start: change.start.milliseconds, environment: change.environment,
          currency: change.currency, figure: change.figure)] = (change.before, change.after)
    }
    let figures = before.rows.count * MetricsFigures.figureNames.count
    print(
      "metrics after replay: \(Self.customers) customers, \(webhooks.count) notifications, "
        + "\(replayed.count) replayed events, \(figures) figures compared, \(moved.count) moved, "
        + "\(diff.changes.count) listed by the diff")
    for (cell, values) in moved.sorted(by: {
      ($0.key.start, $0.key.figure) < ($1.key.start, $1.key.figure)
    }).prefix(20) {
      print("  \(cell.start) \(cell.currency) \(cell.figure): \(values.0) → \(values.1)")
    }
    #expect(figures > 100)
    #expect(replayed.count > Self.customers)
    // The diff names exactly the figures that moved, with the same values.
    #expect(Set(listed.keys) == Set(moved.keys))
    for (cell, values) in moved {
      #expect(listed[cell]?.0 == values.0 && listed[cell]?.1 == values.1, "\(cell)")
    }
    return moved.count
  }
}
