import Logging
import StoreLedgerCore

/// Revenue and subscription metrics from the whole log (projections/revenue.md): every
/// purchase chain's events read a page of chains at a time, folded as the query's `knownAt`
/// admits, and added up. Memory holds one page and the answer's rows, never the log.
public struct LedgerMetrics: Sendable {
  let log: any EventLog
  let maintenance: any MaintenanceStore
  let logger: Logger
  /// Purchase chains read per round trip.
  let pageSize: Int

  public init(ledger: Ledger, pageSize: Int = 500) {
    log = ledger.storage.log
    maintenance = ledger.storage.maintenance
    logger = ledger.storage.logger
    self.pageSize = max(1, pageSize)
  }

  /// The answer to `query`. Throws ``MetricsError`` for a question that cannot be answered
  /// (a rate missing), ``LedgerError`` when the database fails.
  public func report(_ query: MetricsQuery) async throws -> MetricsReport {
    var aggregator = MetricsAggregator(query)
    try await forEachChain { events in
      for timeline in RevenueMetrics.timelines(of: events, for: query) {
        aggregator.add(timeline)
      }
    }
    return try aggregator.report()
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
