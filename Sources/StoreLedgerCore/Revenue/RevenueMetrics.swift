/// Metrics from events: folds what the query's `knownAt` admits, makes each chain's
/// timeline and adds it up. The library feeds it one purchase chain's events at a time
/// (memory bounded by a chain); a scenario feeds all of its events at once.
public enum RevenueMetrics {
  /// The timelines of `events` as known at the query's `knownAt`.
  public static func timelines(of events: [LedgerEvent], for query: MetricsQuery)
    -> [RevenueTimeline]
  {
    let knowledge: Knowledge = query.knownAt.map { .weKnew(at: $0) } ?? .everything
    let state = LedgerState.fold(events, knowing: knowledge)
    return RevenueTimeline.timelines(
      of: state, horizon: query.horizon, commission: query.commission,
      definition: query.definition)
  }

  /// The report of `events` (all of them at once).
  public static func report(of events: [LedgerEvent], for query: MetricsQuery)
    throws(MetricsError) -> MetricsReport
  {
    var aggregator = MetricsAggregator(query)
    for timeline in timelines(of: events, for: query) { aggregator.add(timeline) }
    return try aggregator.report()
  }

  /// How the answer known at `before` differs from the one known at `after`, with the
  /// events recorded in between that moved it.
  public static func diff(
    of events: [LedgerEvent], for query: MetricsQuery, knownAt before: Timestamp,
    _ after: Timestamp
  ) throws(MetricsError) -> MetricsDiff {
    var builder = MetricsDiff.Builder(query, before: before, after: after)
    builder.add(events)
    return try builder.finish()
  }
}
