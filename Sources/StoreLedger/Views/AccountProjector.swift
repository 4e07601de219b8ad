import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// Keeps the per-account read model (`storeledger.account_views`) current: follows the feed
/// from its checkpoint, projects again every account named by the streams that changed, and
/// re-projects views whose stable interval has ended (a subscription expired) or that other
/// rules or another catalog computed. Each refresh also appends the account's new changes to
/// the change feed (``ChangeFeedReader/changes(after:limit:account:consistency:)``).
///
/// Several projectors (one per server) may run at once: each projects from the log as it is,
/// a view never replaces one that includes more changes, and the checkpoint moves by
/// compare-and-swap. Queries never wait for it: see ``Ledger/summary(for:at:)``.
public struct AccountProjector: Sendable {
  public static let checkpointName = "account-views"

  /// What it projects with: the ledger's view writer (and its view store), the log it
  /// follows and the index naming each stream's accounts.
  let views: AccountViewWriter
  let log: any EventLog
  let index: any AccountIndex
  let wakeUp: WakeUpSignal?
  let batchSize: Int
  let pollInterval: Duration
  let concurrency: Int
  /// Accounts projected per pair of statements.
  let chunkSize = 100
  let logger: Logger
  private let counters = ProgressCounters()

  /// What the projector has done since it was made.
  public struct Progress: Sendable, Hashable {
    /// The last feed position it projected.
    public var position: FeedPosition?
    public var eventsProjected = 0
    public var accountsProjected = 0
    /// Age of the oldest event it had not projected when it last read the feed; 0 when it
    /// found nothing new.
    public var lagSeconds = 0.0
    public var failures = 0
    /// Set once a sweep found no view from other rules or another catalog, and no account
    /// whose changes were never derived: views stored afterwards are this projector's own (and
    /// derive their changes), so those scans of the whole table stop.
    var foreignViewsReplaced = false
    /// The checkpoint as this projector last read or wrote it (`.some(nil)`: none yet; nil:
    /// not read yet).
    var persisted: FeedPosition??
    var persistedAt = ContinuousClock.now
  }

  /// How often a busy projector writes its checkpoint: every batch made the checkpoint row a
  /// chain of versions that every read walked; four writes a second do not. After a crash, at
  /// most this much of the feed is projected again (which changes nothing), and what reads the
  /// stored checkpoint (the server's lag figures) is at most this much behind the views.
  static let checkpointInterval = Duration.milliseconds(250)

  /// How often a following projector looks for views that ended and changes the clock made
  /// due: with `AccountViewWriter.changeSettling`, a clock change is appended about half a second after
  /// its instant.
  static let sweepInterval = Duration.milliseconds(200)

  init(
    views: AccountViewWriter, log: any EventLog, index: any AccountIndex, wakeUp: WakeUpSignal?,
    batchSize: Int, pollInterval: Duration, concurrency: Int, logger: Logger
  ) {
    self.views = views
    self.log = log
    self.index = index
    self.wakeUp = wakeUp
    self.batchSize = batchSize
    self.pollInterval = pollInterval
    self.concurrency = max(1, concurrency)
    self.logger = logger
  }

  public var progress: Progress { counters.value }

  /// Projects until the feed has nothing more and every ended or foreign view is replaced,
  /// evaluating views at `now`; returns how many events it projected.
  @discardableResult
  public func catchUp(now: Date = Date()) async throws(LedgerError) -> Int {
    var total = 0
    do {
      while true {
        let projected = try await projectNextBatch(now: now)
        total += projected
        if projected == 0, try await sweep(now: now) == 0 { return total }
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Runs until its task is cancelled. A failure (the database away) is logged and retried
  /// after a second; it never ends the projector.
  public func run() async {
    var lastSweep = ContinuousClock.now - .seconds(60)
    views.viewCache?.noteFeed(following: true)
    defer { views.viewCache?.noteFeed(following: false) }
    while !Task.isCancelled {
      let generation = wakeUp?.generation
      do {
        defer { views.viewCache?.noteFeed(following: true, lagSeconds: progress.lagSeconds) }
        if try await projectNextBatch(now: Date()) > 0 { continue }
        if ContinuousClock.now - lastSweep >= Self.sweepInterval {
          lastSweep = .now
          if try await sweep(now: Date()) > 0 { continue }
        }
      } catch {
        if Task.isCancelled { return }
        counters.update { $0.failures += 1 }
        // Not following the feed now: the cache must not answer until it is again.
        views.viewCache?.noteFeed(following: false)
        logger.warning(
          "account projector failed; retrying",
          metadata: ["error": "\(LedgerStorage.mapped(error).code)"])
        try? await Task.sleep(for: .seconds(1))
        continue
      }
      if let wakeUp {
        _ = await wakeUp.wait(after: generation, timeout: min(pollInterval, Self.sweepInterval))
      } else {
        try? await Task.sleep(for: min(pollInterval, Self.sweepInterval))
      }
    }
  }

  /// Reads the next events of the feed, projects the accounts their streams belong to, and
  /// moves the checkpoint past them; returns how many events that was.
  func projectNextBatch(now: Date) async throws -> Int {
    let start = try await position()
    let entries = try await log.readFeedEntries(
      after: start ?? .beginning, limit: batchSize)
    guard let first = entries.first, let last = entries.last else {
      counters.update { $0.lagSeconds = 0 }
      try await persistCheckpoint()
      return 0
    }
    counters.update { $0.lagSeconds = max(0, Date().timeIntervalSince(first.recordedAt)) }
    let streams = Array(Set(entries.map(\.streamId))).sorted()
    let accounts = try await index.accounts(holding: streams)
    try await refresh(accounts, now: now)
    counters.update {
      $0.position = last.position
      $0.eventsProjected += entries.count
    }
    if ContinuousClock.now - counters.value.persistedAt >= Self.checkpointInterval {
      try await persistCheckpoint()
    }
    return entries.count
  }

  /// Where to read on from: this projector's own position, or the stored checkpoint when it
  /// has none yet.
  private func position() async throws -> FeedPosition? {
    if let position = counters.value.position { return position }
    let stored = try await log.checkpoint(Self.checkpointName)
    counters.update {
      $0.persisted = .some(stored)
      $0.persistedAt = .now
    }
    return stored
  }

  /// Writes the position reached, by compare-and-swap from the checkpoint as last seen. When
  /// another projector moved it, this one takes the stored one as seen and, if it is ahead,
  /// goes on from there.
  private func persistCheckpoint() async throws {
    let state = counters.value
    guard let position = state.position, let persisted = state.persisted, persisted != position
    else { return }
    let store = log
    do {
      try await store.moveCheckpoint(Self.checkpointName, from: persisted, to: position)
      counters.update {
        $0.persisted = .some(position)
        $0.persistedAt = .now
      }
    } catch {
      guard error.code == .checkpointConflict else { throw error }
      let stored = try await store.checkpoint(Self.checkpointName)
      counters.update {
        $0.persisted = .some(stored)
        $0.persistedAt = .now
        if let stored, stored > position { $0.position = stored }
      }
    }
  }

  /// Projects again the views that ended by `now` or were computed by other rules; returns
  /// how many.
  func sweep(now: Date) async throws -> Int {
    let (store, projection) = (views.views, views.projection)
    let scansForeign = !counters.value.foreignViewsReplaced
    let settled = AccountViewWriter.changeHorizon(at: now)
    let ended =
      try await store.expired(at: Timestamp(now), limit: 500)
      + store.changesDue(at: settled, limit: 500)
    let scanLimit = 500
    let foreign = scansForeign ? try await store.foreign(to: projection, limit: scanLimit) : []
    let underived = scansForeign ? try await store.underived(limit: scanLimit) : []
    let due = Array(Set(ended + foreign + underived)).sorted()
    try await refresh(due, now: now)
    // Both scans came back short of their limit: every view that predates this projector's
    // rules or the change feed is projected now. Later accounts arrive through the feed,
    // which this projector follows; scanning on would read every view on every sweep while
    // appends keep adding accounts the feed is about to project anyway.
    if scansForeign, foreign.count < scanLimit, underived.count < scanLimit {
      counters.update { $0.foreignViewsReplaced = true }
    }
    return due.count
  }

  /// Projects `accounts` in chunks (two statements each), `concurrency` chunks at a time.
  private func refresh(_ accounts: [String], now: Date) async throws {
    let views = self.views
    let chunks = stride(from: 0, to: accounts.count, by: chunkSize).map {
      Array(accounts[$0..<min($0 + chunkSize, accounts.count)])
    }
    let projected = try await withThrowingTaskGroup(of: Int.self) { group in
      var projected = 0
      for (index, chunk) in chunks.enumerated() {
        if index >= concurrency { projected += try await group.next() ?? 0 }
        group.addTask { try await views.refreshViews(of: chunk, now: now) }
      }
      for try await count in group { projected += count }
      return projected
    }
    counters.update { $0.accountsProjected += projected }
  }
}

/// The projector's ``AccountProjector/Progress``, shared by its copies.
private final class ProgressCounters: Sendable {
  private let state = Mutex(AccountProjector.Progress())

  var value: AccountProjector.Progress { state.withLock { $0 } }

  func update(_ body: (inout AccountProjector.Progress) -> Void) {
    state.withLock { body(&$0) }
  }
}
