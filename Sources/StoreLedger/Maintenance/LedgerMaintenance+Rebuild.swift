import Foundation
import StoreLedgerCore

extension LedgerMaintenance {
  /// Projects every account from the log into a fresh version of the account views table
  /// while the live one keeps answering, then makes it live in one transaction; the replaced
  /// version stays (`storeledger.account_views_v<N>`) for ``accountViewsDifferences(from:)``
  /// until ``dropAccountViewsVersion(_:)``. The log is read from one snapshot in pages of
  /// about `pageSize` accounts; pages are decoded, folded and stored, `concurrency` at once,
  /// so memory holds only those pages' events.
  ///
  /// Accounts appended to while it ran are projected again right after the switch; until
  /// then their views are not current and queries fold them from the log.
  @discardableResult
  public func rebuildAccountViews(
    pageSize: Int = 200, concurrency: Int = 2, now: Date = Date(),
    progress: (@Sendable (RebuildProgress) -> Void)? = nil
  ) async throws(LedgerError) -> AccountViewsRebuild {
    let started = ContinuousClock.now
    let store = maintenance
    // A release that now reads the app of unrouted evidence routes it before projecting.
    let unrouted = try await reexamineUnrouted()
    do {
      let replaced = try await store.liveViewsVersion()
      let total = try await store.accountCount()
      let version = try await store.beginViewsVersion()
      let (accounts, events) = try await fill(
        version: version, total: total, pageSize: max(1, pageSize),
        concurrency: max(1, concurrency), now: now, progress: progress)
      let stale = try await store.switchLive(to: version)
      for start in stride(from: 0, to: stale.count, by: 100) {
        try await views.refreshViews(
          of: Array(stale[start..<min(start + 100, stale.count)]), now: now)
      }
      let elapsed = ContinuousClock.now - started
      return AccountViewsRebuild(
        version: version, replacedVersion: replaced, accounts: accounts, events: events,
        projectedAfterSwitch: stale.count, unrouted: unrouted,
        seconds: elapsed.seconds)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  // MARK: A rebuild split across processes

  /// Begins a rebuild that several processes fill (``fillAccountViews(version:shard:pageSize:concurrency:now:)``
  /// with shares 0…N-1), switched live once with ``switchAccountViews(to:now:)``; returns the
  /// new version.
  public func beginAccountViewsRebuild() async throws(LedgerError) -> Int {
    do {
      return try await maintenance.beginViewsVersion()
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Projects the accounts of `shard` into `version` (begun, not yet live); returns how many
  /// accounts and events it projected.
  public func fillAccountViews(
    version: Int, shard: WorkShard, pageSize: Int = 200, concurrency: Int = 2, now: Date = Date()
  ) async throws(LedgerError) -> (accounts: Int, events: Int) {
    do {
      return try await fill(
        version: version, total: 0, pageSize: max(1, pageSize), concurrency: max(1, concurrency),
        now: now, shard: shard, progress: nil)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Makes `version` live; accounts appended to meanwhile, and any no share filled, are
  /// projected again right after. Returns how many those were.
  public func switchAccountViews(to version: Int, now: Date = Date()) async throws(LedgerError)
    -> Int
  {
    do {
      let stale = try await maintenance.switchLive(to: version)
      for start in stride(from: 0, to: stale.count, by: 100) {
        try await views.refreshViews(
          of: Array(stale[start..<min(start + 100, stale.count)]), now: now)
      }
      return stale.count
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Every version of the account views table, oldest first.
  public func accountViewsVersions() async throws(LedgerError) -> [AccountViewsVersion] {
    do {
      return try await maintenance.viewsVersions()
    } catch {
      throw Self.versionError(error)
    }
  }

  /// The accounts whose view differs between the live table and retired `version`.
  public func accountViewsDifferences(from version: Int) async throws(LedgerError)
    -> [AccountViewDifference]
  {
    do {
      return try await maintenance.viewDifferences(from: version)
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Drops a retired version's table.
  public func dropAccountViewsVersion(_ version: Int) async throws(LedgerError) {
    do {
      try await maintenance.dropViewsVersion(version)
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Fills version `version` from every account's events in token order, read from one
  /// snapshot in pages of about `pageSize` accounts: each page goes to one of up to
  /// `concurrency` workers that decode, fold and store it while the next page is read, so
  /// memory holds only those pages.
  /// Returns how many accounts and events it projected.
  func fill(
    version: Int, total: Int, pageSize: Int, concurrency: Int, now: Date,
    shard: WorkShard = .whole, progress: (@Sendable (RebuildProgress) -> Void)?
  ) async throws -> (accounts: Int, events: Int) {
    try await maintenance.withAccountEventPages(
      shard: shard, pageSize: pageSize
    ) { pages in
      try await withThrowingTaskGroup(of: (Int, Int).self) { group in
        var (accounts, events, running) = (0, 0, 0)
        while let page = try await pages.next() {
          if running == concurrency, let (done, folded) = try await group.next() {
            (accounts, events, running) = (accounts + done, events + folded, running - 1)
            progress?(RebuildProgress(accounts: accounts, totalAccounts: total, events: events))
          }
          group.addTask { try await self.rebuild(page, into: version, now: now) }
          running += 1
        }
        for try await (done, folded) in group {
          (accounts, events) = (accounts + done, events + folded)
          progress?(RebuildProgress(accounts: accounts, totalAccounts: total, events: events))
        }
        return (accounts, events)
      }
    }
  }

  /// Decodes, folds and stores one batch of accounts into version `version`; returns
  /// (accounts, events).
  private func rebuild(_ batch: [StoredAccountEvents], into version: Int, now: Date) async throws
    -> (
      Int, Int
    )
  {
    let (store, projection) = (maintenance, views.projection)
    let instant = Timestamp(now)
    var events = 0
    let projected = try batch.map { account in
      events += account.rows.count
      // A refund request's events sit in the account's index for its changes, not its fold.
      let events = try account.rows.filter(\.holdsLedgerEvent).map { row in
        LedgerEvent(try row.body(), recordedAt: row.recordedAt, key: row.key)
      }
      let state = LedgerState.fold(events)
      var view = views.projectedView(
        of: account.token, changes: account.changes, state: state, at: instant)
      view.history = views.history(of: account.token, events, state: state, through: instant)
      return view
    }
    try await store.store(projected, intoVersion: version, projection: projection)
    return (projected.count, events)
  }

  /// The rebuild functions' refusals (a version that is not retired) as invalid requests.
  private static func versionError(_ error: any Error) -> LedgerError {
    if let error = error as? EventStoreError, error.code == .viewsVersionRefused {
      return LedgerError(.invalidRequest, error.message)
    }
    return LedgerStorage.mapped(error)
  }
}
