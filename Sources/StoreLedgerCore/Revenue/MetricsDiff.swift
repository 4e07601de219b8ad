/// How metrics known at one time differ from the same metrics known later: every figure
/// that moved, and for each purchase chain that moved one, its share of the move and the
/// events recorded in between (late notifications, replays, refunds) that caused it.
public struct MetricsDiff: Hashable, Sendable, Codable {
  public struct Change: Hashable, Sendable, Codable {
    public var start: Timestamp
    public var end: Timestamp
    public var group: [String: String]
    public var environment: String
    public var currency: String
    /// The figure's JSON name (`mrr`, `refunds`, …).
    public var figure: String
    public var before: Int64
    public var after: Int64
  }

  /// An event recorded between the two times, as explanations cite events.
  public struct CausingEvent: Hashable, Sendable, Codable {
    public var reference: EventReference
    public var recordedAt: Timestamp?
  }

  public struct Cause: Hashable, Sendable, Codable {
    public var originalTransactionId: String
    /// This chain's share of the changes.
    public var changes: [Change]
    /// The chain's events recorded after the first time and by the second, oldest first.
    public var events: [CausingEvent]
  }

  public var from: Timestamp
  public var to: Timestamp
  public var by: String
  public var knownAt: [Timestamp]
  public var changes: [Change]
  public var causes: [Cause]

  /// Collects both answers chain by chain.
  public struct Builder: Sendable {
    let query: MetricsQuery
    let before: Timestamp
    let after: Timestamp
    var earlier: MetricsAggregator
    var later: MetricsAggregator
    var causes: [Cause] = []

    public init(_ query: MetricsQuery, before: Timestamp, after: Timestamp) {
      self.query = query
      self.before = min(before, after)
      self.after = max(before, after)
      earlier = MetricsAggregator(query.knowing(self.before))
      later = MetricsAggregator(query.knowing(self.after))
    }

    /// Adds the events of one or more purchase chains.
    public mutating func add(_ events: [LedgerEvent]) {
      let old = RevenueMetrics.timelines(of: events, for: earlier.query)
      let new = RevenueMetrics.timelines(of: events, for: later.query)
      for timeline in old { earlier.add(timeline) }
      for timeline in new { later.add(timeline) }
      let oldById = Dictionary(old.map { ($0.originalTransactionId, $0) }) { first, _ in first }
      let newById = Dictionary(new.map { ($0.originalTransactionId, $0) }) { first, _ in first }
      for id in Set(oldById.keys).union(newById.keys).sorted() where oldById[id] != newById[id] {
        var a = MetricsAggregator(earlier.query)
        var b = MetricsAggregator(later.query)
        if let timeline = oldById[id] { a.add(timeline) }
        if let timeline = newById[id] { b.add(timeline) }
        let share = (try? MetricsDiff.changes(a.report(), b.report())) ?? []
        guard !share.isEmpty else { continue }
        // The same event delivered twice is one cause.
        let moved = Set(events).filter { event in
          guard let recorded = event.recordedAt, recorded > before, recorded <= after else {
            return false
          }
          let input = event.compiled
          return input.transactionFacts?.originalTransactionId == id
            || input.transactionFacts?.transactionId == id
            || input.renewalFacts?.originalTransactionId == id
        }.sorted {
          ($0.recordedAt?.milliseconds ?? .min, $0.key ?? "", $0.eventType)
            < ($1.recordedAt?.milliseconds ?? .min, $1.key ?? "", $1.eventType)
        }
        causes.append(
          Cause(
            originalTransactionId: id, changes: share,
            events: moved.map {
              CausingEvent(reference: $0.compiled.reference, recordedAt: $0.recordedAt)
            }))
      }
    }

    public func finish() throws(MetricsError) -> MetricsDiff {
      let old = try earlier.report()
      let new = try later.report()
      return MetricsDiff(
        from: query.from, to: query.to, by: old.by, knownAt: [before, after],
        changes: MetricsDiff.changes(old, new), causes: causes)
    }
  }

  /// Every integer figure that differs between two reports of the same query.
  static func changes(_ old: MetricsReport, _ new: MetricsReport) -> [Change] {
    struct Cell: Hashable {
      var start: Timestamp
      var group: [String: String]
      var environment: String
      var currency: String
    }
    func cells(_ report: MetricsReport) -> [Cell: MetricsReport.Row] {
      Dictionary(
        report.rows.map {
          (
            Cell(
              start: $0.start, group: $0.group, environment: $0.environment, currency: $0.currency),
            $0
          )
        }
      ) { first, _ in first }
    }
    let before = cells(old)
    let after = cells(new)
    var changes: [Change] = []
    for cell in Set(before.keys).union(after.keys) {
      let row = after[cell] ?? before[cell]!
      for name in MetricsFigures.figureNames {
        let was = before[cell].flatMap { MetricsFigures.value(name, of: $0.figures) } ?? 0
        let now = after[cell].flatMap { MetricsFigures.value(name, of: $0.figures) } ?? 0
        guard was != now else { continue }
        changes.append(
          Change(
            start: cell.start, end: row.end, group: cell.group, environment: cell.environment,
            currency: cell.currency, figure: name, before: was, after: now))
      }
    }
    return changes.sorted {
      (
        $0.start.milliseconds, $0.environment, $0.currency,
        $0.group.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(), $0.figure
      )
        < (
          $1.start.milliseconds, $1.environment, $1.currency,
          $1.group.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(), $1.figure
        )
    }
  }
}
