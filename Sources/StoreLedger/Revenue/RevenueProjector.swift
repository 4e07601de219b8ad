import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres

/// Keeps the revenue analytics (`storeledger_analytics`, projections/revenue.md) current:
/// follows the feed from its checkpoint and makes again the rows of every purchase chain an
/// event arrived for, from the chain's whole stream (so rows never depend on the order
/// events came in). Several may run at once: rows are replaced whole and the checkpoint moves
/// by compare-and-swap.
public struct RevenueProjector: Sendable {
  public static let checkpointName = "revenue-analytics"
  /// What a purchase chain's stream id starts with: the streams the analytics are made from.
  static let chainPrefix = "sub:"

  let log: any EventLog
  let revenue: any RevenueAnalyticsStore
  let wakeUp: WakeUpSignal?
  let batchSize: Int
  let pollInterval: Duration
  let logger: Logger
  /// Chains read per round trip.
  let pageSize: Int

  package init(
    log: any EventLog, revenue: any RevenueAnalyticsStore, wakeUp: WakeUpSignal? = nil,
    batchSize: Int = 2000, pageSize: Int = 500, pollInterval: Duration = .milliseconds(500),
    logger: Logger
  ) {
    self.log = log
    self.revenue = revenue
    self.wakeUp = wakeUp
    self.batchSize = max(1, batchSize)
    self.pageSize = max(1, pageSize)
    self.pollInterval = pollInterval
    self.logger = logger
  }

  /// Rows are made with every end counted (the analytics' readers count an end once it has
  /// passed) and the default commission (no tax table).
  static let horizon = Timestamp(milliseconds: InstantText.latest)

  /// Projects until the feed has nothing more; returns how many events it passed.
  @discardableResult
  public func catchUp() async throws(LedgerError) -> Int {
    var total = 0
    do {
      while true {
        let moved = try await projectNextBatch()
        if moved == 0 { return total }
        total += moved
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Follows the feed until cancelled.
  public func run() async {
    while !Task.isCancelled {
      let generation = wakeUp?.generation
      do {
        if try await projectNextBatch() > 0 { continue }
      } catch {
        if Task.isCancelled { return }
        logger.warning(
          "revenue projector failed; retrying",
          metadata: ["error": "\(LedgerStorage.mapped(error).code)"])
        try? await Task.sleep(for: .seconds(1))
        continue
      }
      if let wakeUp {
        _ = await wakeUp.wait(after: generation, timeout: pollInterval)
      } else {
        try? await Task.sleep(for: pollInterval)
      }
    }
  }

  /// Deletes every row and projects the whole log again; returns how many events it read.
  ///
  /// Following the feed from its start would project a chain again for every batch that
  /// holds one of its events; instead every chain is projected once, from its whole stream
  /// as it is then, `concurrency` pages at once. That covers every event up to the feed's
  /// head read before the first page, so the checkpoint moves there and the feed is followed
  /// from it for what arrived meanwhile.
  @discardableResult
  public func rebuild(concurrency: Int = 2) async throws(LedgerError) -> Int {
    let events: Int
    do {
      try await revenue.clearRevenue()
      var checkpoint = try await log.checkpoint(Self.checkpointName)
      if let moved = checkpoint {
        try await log.moveCheckpoint(Self.checkpointName, from: moved, to: .beginning)
        checkpoint = .beginning
      }
      let head = try await log.feedHead()
      events = try await projectEveryChain(concurrency: max(1, concurrency))
      if let head {
        do {
          try await log.moveCheckpoint(Self.checkpointName, from: checkpoint, to: head)
        } catch {
          // Another projector moved it: following the feed from there makes rows again that
          // are as good as these.
          guard error.code == .checkpointConflict else { throw error }
        }
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
    return try await events + catchUp()
  }

  /// Projects every chain of the log once, in pages of stream ids, `concurrency` pages at a
  /// time; returns how many events the pages held.
  private func projectEveryChain(concurrency: Int) async throws -> Int {
    try await withThrowingTaskGroup(of: Int.self) { group in
      var (after, running, events) = ("", 0, 0)
      while true {
        let page = try await log.streamIds(
          prefixed: Self.chainPrefix, after: after, limit: pageSize)
        guard let last = page.last else { break }
        after = last
        if running == concurrency, let done = try await group.next() {
          (events, running) = (events + done, running - 1)
        }
        group.addTask {
          let (chains, read) = try await project(page)
          try await revenue.storeRevenue(chains)
          return read
        }
        running += 1
      }
      for try await done in group { events += done }
      return events
    }
  }

  /// One batch of the feed: the chains it names projected, the checkpoint moved past it.
  func projectNextBatch() async throws -> Int {
    let checkpoint = try await log.checkpoint(Self.checkpointName)
    let entries = try await log.readFeedEntries(
      after: checkpoint ?? .beginning, limit: batchSize)
    guard let last = entries.last else { return 0 }
    let chains = Set(entries.map(\.streamId).filter { $0.hasPrefix(Self.chainPrefix) }).sorted()
    var start = 0
    while start < chains.count {
      let page = Array(chains[start..<min(start + pageSize, chains.count)])
      start += page.count
      try await revenue.storeRevenue(try await project(page).chains)
    }
    do {
      try await log.moveCheckpoint(Self.checkpointName, from: checkpoint, to: last.position)
    } catch {
      // Another projector moved it: the rows it made are as good as these.
      guard error.code == .checkpointConflict else { throw error }
    }
    return entries.count
  }

  /// The rows of each of `streams`, from its whole stream, and how many events those hold.
  func project(_ streams: [String]) async throws -> (chains: [ChainRevenue], events: Int) {
    let rows = try await log.readStreamFoldRows(streams)
    var byStream: [String: (events: [LedgerEvent], position: FeedPosition, recorded: Date)] = [:]
    for row in rows {
      var chain = byStream[row.streamId] ?? ([], row.position, row.recordedAt)
      chain.position = max(chain.position, row.position)
      chain.recorded = max(chain.recorded, row.recordedAt)
      if EventCodec.holdsLedgerEvent(row.eventType) {
        do {
          chain.events.append(try EventCodec.event(row))
        } catch {
          logger.warning(
            "revenue projector skipped an unreadable event",
            metadata: ["stream": "\(row.streamId)"])
        }
      }
      byStream[row.streamId] = chain
    }
    let chains = streams.compactMap { stream -> ChainRevenue? in
      guard let chain = byStream[stream] else { return nil }
      let timelines = RevenueTimeline.timelines(
        of: LedgerState.fold(chain.events), horizon: Self.horizon,
        commission: CommissionPolicy())
      return ChainRevenue(
        chain: stream, position: chain.position, recordedAt: chain.recorded,
        timelines: timelines)
    }
    return (chains, rows.count)
  }
}
