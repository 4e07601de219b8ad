import Logging
import StoreLedgerCore

/// Revenue and subscription metrics from the whole log (projections/revenue.md): every
/// purchase chain's events read a page of chains at a time, folded as the query's `knownAt`
/// admits, and added up. Memory holds one page and the answer's rows, never the log.
public struct LedgerMetrics: Sendable {
  let log: any EventLog
  let maintenance: any MaintenanceStore
  let revenue: any RevenueAnalyticsStore
  let projector: RevenueProjector
  let logger: Logger
  /// Purchase chains read per round trip.
  let pageSize: Int

  init(
    log: any EventLog, maintenance: any MaintenanceStore, revenue: any RevenueAnalyticsStore,
    projector: RevenueProjector, logger: Logger, pageSize: Int
  ) {
    self.log = log
    self.maintenance = maintenance
    self.revenue = revenue
    self.projector = projector
    self.logger = logger
    self.pageSize = max(1, pageSize)
  }

  /// Where an answer is computed from.
  public enum Source: Sendable {
    /// The analytics rows when they can answer (everything known, the default commission
    /// and definition), else the log.
    case automatic
    /// Every purchase chain's events folded again.
    case log
    /// The revenue analytics, brought up to date first.
    case analytics
  }

  /// The answer to `query`. Throws ``MetricsError`` for a question that cannot be answered
  /// (a rate missing), ``LedgerError`` when the database fails. Both sources give the same
  /// answer (`RevenueAnalyticsTests`).
  public func report(_ query: MetricsQuery, from source: Source = .automatic) async throws
    -> MetricsReport
  {
    let analytics =
      switch source {
      case .log: false
      case .analytics: true
      case .automatic:
        query.knownAt == nil && query.commission == CommissionPolicy()
          && query.definition == .storeledger
      }
    var aggregator = MetricsAggregator(query)
    if analytics {
      try await projector.catchUp()
      try await forEachRevenuePage(after: .beginning) { page in
        for chain in page { for timeline in chain.timelines { aggregator.add(timeline) } }
      }
    } else {
      try await forEachChain { events in
        for timeline in RevenueMetrics.timelines(of: events, for: query) {
          aggregator.add(timeline)
        }
      }
    }
    return try aggregator.report()
  }

  /// Every chain's revenue rows whose newest event is after `position`, a page at a time in
  /// position order (an export goes on from the last page's last position). The analytics
  /// are read as they are: bring them up to date with ``RevenueProjector/catchUp()`` first.
  public func forEachRevenuePage(
    after position: FeedPosition, _ body: ([ChainRevenue]) async throws -> Void
  ) async throws {
    var position = position
    while true {
      let page: [ChainRevenue]
      do {
        page = try await revenue.revenueChains(after: position, limit: pageSize)
      } catch {
        throw LedgerStorage.mapped(error)
      }
      guard let last = page.last else { return }
      try await body(page)
      position = last.position
      if page.count < pageSize { return }
    }
  }

  /// How the answer known at `before` differs from the one known at `after`, with the
  /// events recorded in between that moved it.
  public func diff(_ query: MetricsQuery, knownAt before: Timestamp, _ after: Timestamp)
    async throws -> MetricsDiff
  {
    var builder = MetricsDiff.Builder(query, before: before, after: after)
    try await forEachChain { builder.add($0) }
    return try builder.finish()
  }

  /// Every purchase chain's timeline as known at `query.knownAt`, a chain at a time: what an
  /// export writes.
  public func timelines(
    _ query: MetricsQuery, _ body: (RevenueTimeline) async throws -> Void
  ) async throws {
    try await forEachChain { events in
      for timeline in RevenueMetrics.timelines(of: events, for: query) { try await body(timeline) }
    }
  }

  /// Runs `body` with each purchase chain's events (one stream each), in stream order.
  func forEachChain(_ body: ([LedgerEvent]) async throws -> Void) async throws {
    let streams: [String]
    do {
      streams = try await maintenance.purchaseStreams()
    } catch {
      throw LedgerStorage.mapped(error)
    }
    var start = 0
    while start < streams.count {
      let page = Array(streams[start..<min(start + pageSize, streams.count)])
      start += page.count
      let rows: [RecordedEvent]
      do {
        rows = try await log.readStreams(page)
      } catch {
        throw LedgerStorage.mapped(error)
      }
      var chain: [LedgerEvent] = []
      var current: String?
      for row in rows where EventCodec.holdsLedgerEvent(row.eventType) {
        if row.streamId != current, !chain.isEmpty {
          try await body(chain)
          chain.removeAll(keepingCapacity: true)
        }
        current = row.streamId
        do {
          chain.append(try EventCodec.event(row))
        } catch {
          // A row the codec cannot read is the audit's finding, not a reason to stop
          // counting the rest; it is logged by its stream, never its payload.
          logger.warning(
            "metrics skipped an unreadable event", metadata: ["stream": "\(row.streamId)"])
        }
      }
      if !chain.isEmpty { try await body(chain) }
    }
  }
}
