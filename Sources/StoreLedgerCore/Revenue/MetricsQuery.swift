/// A metrics question: a range cut into buckets, what to group by, and the two clocks —
/// the range's own times (the world as of each bucket) and `knownAt` (only what StoreLedger
/// had recorded by then).
public struct MetricsQuery: Hashable, Sendable {
  /// Inclusive.
  public let from: Timestamp
  /// Exclusive.
  public let to: Timestamp
  public let granularity: MetricsGranularity
  public let grouping: [MetricsDimension]
  /// Only events recorded by this time; nil: everything recorded.
  public var knownAt: Timestamp?
  /// The time the question is asked at: ends after it (or after `knownAt`) have not
  /// happened yet.
  public let now: Timestamp
  public let commission: CommissionPolicy
  /// With a rate table, every amount also in its reporting currency.
  public let rates: CurrencyRates?
  /// Adds the cohort table (by month of a subscription's first period).
  public let cohorts: Bool
  /// A single instant (`--at`): one bucket, its figures at `from`.
  public let isInstant: Bool
  /// Whose rules decide churn where peers differ.
  public var definition: MetricsDefinition = .storeledger

  /// Most buckets one answer holds (ten years of days).
  public static let maximumBuckets = 3_700

  public init(
    from: Timestamp, to: Timestamp, granularity: MetricsGranularity = .day,
    grouping: [MetricsDimension] = [], knownAt: Timestamp? = nil, now: Timestamp,
    commission: CommissionPolicy = CommissionPolicy(), rates: CurrencyRates? = nil,
    cohorts: Bool = false
  ) throws(MetricsError) {
    guard to > from else {
      throw MetricsError(
        .rangeReversed,
        "the range ends (\(MetricsCalendar.dateText(to))) before it starts (\(MetricsCalendar.dateText(from))); give --to after --from"
      )
    }
    self.from = from
    self.to = to
    self.granularity = granularity
    self.grouping = grouping
    self.knownAt = knownAt
    self.now = now
    self.commission = try commission.validated()
    self.rates = rates
    self.cohorts = cohorts
    self.isInstant = false
    let buckets = self.buckets.count
    guard buckets <= Self.maximumBuckets else {
      throw MetricsError(
        .rangeTooLong,
        "the range holds \(buckets) \(granularity.rawValue)s; ask for at most \(Self.maximumBuckets) (a larger bucket, or a shorter range)"
      )
    }
  }

  /// The figures at one instant.
  public init(
    at time: Timestamp, grouping: [MetricsDimension] = [], knownAt: Timestamp? = nil,
    now: Timestamp, commission: CommissionPolicy = CommissionPolicy(),
    rates: CurrencyRates? = nil
  ) throws(MetricsError) {
    self.from = time
    self.to = Timestamp(milliseconds: time.milliseconds + 1)
    self.granularity = .day
    self.grouping = grouping
    self.knownAt = knownAt
    self.now = now
    self.commission = try commission.validated()
    self.rates = rates
    self.cohorts = false
    self.isInstant = true
  }

  /// The same question under another definition.
  public func defined(by definition: MetricsDefinition) -> MetricsQuery {
    var copy = self
    copy.definition = definition
    return copy
  }

  /// The same question with another `knownAt`.
  public func knowing(_ time: Timestamp?) -> MetricsQuery {
    var copy = self
    copy.knownAt = time
    return copy
  }

  /// Ends at or before this have happened: the earlier of `now` and `knownAt`.
  public var horizon: Timestamp { min(now, knownAt ?? now) }

  /// The buckets: `[start, end)` cut at the granularity's boundaries and clipped to the
  /// range; for an instant, one bucket.
  public var buckets: [(start: Timestamp, end: Timestamp)] {
    if isInstant { return [(from, to)] }
    var result: [(Timestamp, Timestamp)] = []
    var start = MetricsCalendar.start(of: granularity, holding: from)
    while start < to, result.count <= Self.maximumBuckets {
      let next = MetricsCalendar.next(granularity, after: start)
      result.append((max(start, from), min(next, to)))
      start = next
    }
    return result
  }
}
