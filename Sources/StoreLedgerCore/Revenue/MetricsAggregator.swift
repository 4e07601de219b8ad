/// Adds timelines into the figures of a ``MetricsQuery``. Additive: one timeline at a time,
/// in any order, memory bounded by the answer's rows (not by the log). Stocks use
/// difference arrays over the buckets' instants, so a year-long period costs two additions,
/// not 365.
public struct MetricsAggregator: Sendable {
  public let query: MetricsQuery
  private let buckets: [(start: Timestamp, end: Timestamp)]
  /// Index 0: the instant before the range (for churn rates); i + 1: bucket i's instant.
  private let instants: [Int64]

  struct Key: Hashable {
    var group: [String]
    var environment: String
    var currency: String
  }

  struct CellKey: Hashable {
    var bucket: Int
    var key: Key
  }

  struct Stocks {
    var subscriptions: [Int64]
    var trials: [Int64]
    var seats: [Int64]
    var mrr: [Int64]
    /// Of the subscriptions and trials in force, those in billing grace.
    var grace: [Int64]
    /// Not in force: in billing retry.
    var retry: [Int64]

    init(count: Int) {
      subscriptions = Array(repeating: 0, count: count)
      trials = subscriptions
      seats = subscriptions
      mrr = subscriptions
      grace = subscriptions
      retry = subscriptions
    }

    /// The changes at `index`: subscriptions, trials, seats, MRR, grace, retry.
    func changes(at index: Int) -> [Int64] {
      [subscriptions[index], trials[index], seats[index], mrr[index], grace[index], retry[index]]
    }

    /// Adds `value` to the stock at `path` from instant `first` until `past`.
    mutating func add(
      _ path: WritableKeyPath<Stocks, [Int64]>, _ value: Int64, _ first: Int, _ past: Int
    ) {
      self[keyPath: path][first] += value
      self[keyPath: path][past] -= value
    }
  }

  struct CohortKey: Hashable {
    var cohort: Timestamp
    var month: Int
    var environment: String
    var currency: String
  }

  private var stocks: [Key: Stocks] = [:]
  private var flows: [CellKey: MetricsFigures] = [:]
  private var cohortCells: [CohortKey: (subscriptions: Int64, retained: Int64, revenue: Int64)] =
    [:]

  public init(_ query: MetricsQuery) {
    self.query = query
    buckets = query.buckets
    var instants = [query.from.milliseconds - 1]
    for bucket in buckets {
      instants.append(query.isInstant ? query.from.milliseconds : bucket.end.milliseconds - 1)
    }
    self.instants = instants
  }

  private func key(_ attributes: MetricsAttributes) -> Key {
    Key(
      group: query.grouping.compactMap {
        $0 == .environment || $0 == .currency ? nil : attributes.value(of: $0)
      },
      environment: attributes.environment, currency: attributes.currency)
  }

  /// The first instant index at or after `time`.
  private func firstInstant(atOrAfter time: Int64) -> Int {
    var low = 0
    var high = instants.count
    while low < high {
      let middle = (low + high) / 2
      if instants[middle] < time { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// The bucket holding `time`, nil outside the range.
  private func bucket(holding time: Timestamp) -> Int? {
    guard time >= query.from, time < query.to else { return nil }
    var low = 0
    var high = buckets.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if buckets[middle].start <= time { low = middle } else { high = middle - 1 }
    }
    return low
  }

  /// Adds one chain's timeline.
  public mutating func add(_ timeline: RevenueTimeline) {
    for segment in timeline.segments {
      let first = firstInstant(atOrAfter: segment.start.milliseconds)
      let past = firstInstant(atOrAfter: segment.end.milliseconds)
      guard first < past else { continue }
      let key = key(segment.attributes)
      var stock = stocks[key] ?? Stocks(count: instants.count + 1)
      if segment.isTrial {
        stock.add(\.trials, 1, first, past)
      } else {
        stock.add(\.subscriptions, 1, first, past)
        stock.add(\.mrr, segment.monthlyValue, first, past)
      }
      stock.add(\.seats, segment.seats, first, past)
      if segment.inGrace { stock.add(\.grace, 1, first, past) }
      stocks[key] = stock
    }
    for stretch in timeline.billingRetry {
      let first = firstInstant(atOrAfter: stretch.start.milliseconds)
      let past = firstInstant(atOrAfter: stretch.end.milliseconds)
      guard first < past else { continue }
      let key = key(stretch.attributes)
      var stock = stocks[key] ?? Stocks(count: instants.count + 1)
      stock.add(\.retry, 1, first, past)
      stocks[key] = stock
    }
    for entry in timeline.entries {
      // An end after the horizon has not happened (rows made for every end carry it).
      if entry.kind.isEnd, entry.date > query.horizon { continue }
      guard let bucket = bucket(holding: entry.date) else { continue }
      flows[CellKey(bucket: bucket, key: key(entry.attributes)), default: MetricsFigures()]
        .count(entry)
    }
    if query.cohorts { addCohort(timeline) }
  }

  private mutating func addCohort(_ timeline: RevenueTimeline) {
    guard timeline.isSubscription, let first = timeline.segments.first,
      first.start >= query.from, first.start < query.to
    else { return }
    let cohort = MetricsCalendar.start(of: .month, holding: first.start)
    let environment = first.attributes.environment
    let currency = first.attributes.currency
    var month = cohort
    var index = 0
    let last = min(query.to, query.horizon)
    while month < last {
      let next = MetricsCalendar.next(.month, after: month)
      let instant = Timestamp(milliseconds: min(next, last).milliseconds - 1)
      let retained = timeline.segments.contains { !$0.isTrial && $0.holds(instant) }
      var revenue: Int64 = 0
      for entry in timeline.entries where entry.date >= month && entry.date < next {
        guard entry.attributes.currency == currency else { continue }
        switch entry.kind {
        case .purchase, .renewal, .seatAddition, .refundReversed: revenue += entry.amount
        case .refund, .upgradeCredit: revenue -= entry.amount
        default: break
        }
      }
      let key = CohortKey(
        cohort: cohort, month: index, environment: environment, currency: currency)
      var cell = cohortCells[key] ?? (0, 0, 0)
      cell.subscriptions += 1
      cell.retained += retained ? 1 : 0
      cell.revenue += revenue
      cohortCells[key] = cell
      month = next
      index += 1
    }
  }

  /// The answer. Throws `rate_missing` when a rate table was given and lacks a currency the
  /// range holds money in.
  public func report() throws(MetricsError) -> MetricsReport {
    var rows: [MetricsReport.Row] = []
    var keys = Set(stocks.keys)
    for cell in flows.keys { keys.insert(cell.key) }
    let ordered = keys.sorted {
      ($0.environment, $0.currency, $0.group.joined(separator: "\u{1}"))
        < ($1.environment, $1.currency, $1.group.joined(separator: "\u{1}"))
    }
    var running: [Key: [Int64]] = [:]
    for key in ordered {
      guard let stock = stocks[key] else { continue }
      running[key] = stock.changes(at: 0)
    }
    for (index, bucket) in buckets.enumerated() {
      for key in ordered {
        var figures = flows[CellKey(bucket: index, key: key)] ?? MetricsFigures()
        if let stock = stocks[key] {
          var value = running[key] ?? Array(repeating: 0, count: 6)
          figures.activeAtStart = value[0]
          for (slot, change) in stock.changes(at: index + 1).enumerated() { value[slot] += change }
          running[key] = value
          figures.activeSubscriptions = value[0]
          figures.activeTrials = value[1]
          figures.activeSeats = value[2]
          figures.mrr = value[3]
          figures.inGrace = value[4]
          figures.inBillingRetry = value[5]
        }
        figures.derive()
        guard figures.isNotEmpty else { continue }
        rows.append(
          MetricsReport.Row(
            start: bucket.start, end: bucket.end, group: groupMap(key.group),
            environment: key.environment, currency: key.currency, figures: figures))
      }
    }
    var report = MetricsReport(
      from: query.from, to: query.to,
      by: query.isInstant ? "instant" : query.granularity.rawValue,
      grouping: query.grouping.map(\.rawValue), knownAt: query.knownAt,
      horizon: query.horizon, estimated: true, commission: query.commission,
      definition: query.definition, rows: rows,
      reporting: nil, cohorts: query.cohorts ? cohortRows() : nil,
      units:
        "amounts are integers in milliunits (1/1000) of the row's currency; rates are fractions; estimatedProceeds and upgradeCredit are estimates"
    )
    if let rates = query.rates { report.reporting = try reporting(rows, rates) }
    return report
  }

  private func groupMap(_ values: [String]) -> [String: String] {
    let names = query.grouping.filter { $0 != .environment && $0 != .currency }.map(\.rawValue)
    return Dictionary(uniqueKeysWithValues: zip(names, values))
  }

  private func cohortRows() -> [MetricsReport.CohortRow] {
    cohortCells.map { key, cell in
      MetricsReport.CohortRow(
        cohort: MetricsCalendar.monthText(key.cohort), month: key.month,
        environment: key.environment, currency: key.currency, subscriptions: cell.subscriptions,
        retained: cell.retained,
        retention: cell.subscriptions > 0
          ? Double(cell.retained) / Double(cell.subscriptions) : nil, revenue: cell.revenue)
    }.sorted {
      ($0.cohort, $0.environment, $0.currency, $0.month)
        < ($1.cohort, $1.environment, $1.currency, $1.month)
    }
  }

  /// The rows in the reporting currency: each bucket's amounts converted at the rate in force
  /// at its start, counts summed over currencies.
  private func reporting(_ rows: [MetricsReport.Row], _ rates: CurrencyRates) throws(MetricsError)
    -> MetricsReport.Reporting
  {
    struct Group: Hashable {
      var start: Timestamp
      var group: [String: String]
      var environment: String
    }
    var sums: [Group: (end: Timestamp, figures: MetricsFigures)] = [:]
    var order: [Group] = []
    for row in rows {
      var converted = row.figures
      if converted.holdsMoney {
        for path in MetricsFigures.amountPaths {
          converted[keyPath: path] = try rates.convert(
            row.figures[keyPath: path], of: row.currency, at: row.start)
        }
      }
      let group = Group(start: row.start, group: row.group, environment: row.environment)
      if sums[group] == nil {
        order.append(group)
        sums[group] = (row.end, MetricsFigures())
      }
      sums[group]?.figures.add(converted)
    }
    let converted = order.compactMap { group -> MetricsReport.Row? in
      guard var sum = sums[group] else { return nil }
      sum.figures.derive()
      return MetricsReport.Row(
        start: group.start, end: sum.end, group: group.group, environment: group.environment,
        currency: rates.reportingCurrency, figures: sum.figures)
    }
    return MetricsReport.Reporting(
      currency: rates.reportingCurrency, rates: rates.entries, rows: converted)
  }
}

extension MetricsFigures {
  /// Counts one entry into the flows.
  mutating func count(_ entry: RevenueEntry) {
    switch entry.kind {
    case .purchase, .renewal, .seatAddition:
      transactions += 1
      grossRevenue += entry.amount
      estimatedProceeds += entry.proceeds
    case .refund:
      refunds += 1
      refundAmount += entry.amount
      estimatedProceeds -= entry.proceeds
    case .refundReversed:
      refundsReversed += 1
      refundReversedAmount += entry.amount
      estimatedProceeds += entry.proceeds
    case .upgradeCredit:
      upgradeCredit += entry.amount
      estimatedProceeds -= entry.proceeds
    case .newSubscription: newSubscriptions += 1
    case .trialStarted: trialStarts += 1
    case .trialConverted: trialConversions += 1
    case .trialExpired: trialExpirations += 1
    case .reactivated: reactivations += 1
    case .productChanged: productChanges += 1
    case .churnVoluntary: churnVoluntary += 1
    case .churnBilling: churnBilling += 1
    case .churnRefund: churnRefund += 1
    case .churnOther: churnOther += 1
    }
  }

  /// Whether the row says anything.
  var isNotEmpty: Bool {
    Self.amountPaths.contains { self[keyPath: $0] != 0 }
      || Self.countPaths.contains { self[keyPath: $0] != 0 }
  }
}
