import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// Projects every account from the log into a fresh version of the account views table
  /// while the live one keeps answering, then makes it live in one transaction; the replaced
  /// version stays (`storeledger.account_views_v<N>`) for ``accountViewsDifferences(from:)``
  /// until ``dropAccountViewsVersion(_:)``. The log is read `pageSize` accounts at a time,
  /// `concurrency` pages at once, so memory holds only those pages' events.
  ///
  /// Accounts appended to while it ran are projected again right after the switch; until
  /// then their views are not current and queries fold them from the log.
  @discardableResult
  public func rebuildAccountViews(
    pageSize: Int = 200, concurrency: Int = 2, now: Date = Date(),
    progress: (@Sendable (RebuildProgress) -> Void)? = nil
  ) async throws(LedgerError) -> AccountViewsRebuild {
    let started = ContinuousClock.now
    let (client, logger) = (self.client, self.logger)
    do {
      let (replaced, total, version) = try await withDatabase {
        let replaced = try await AccountViewsRebuildStatements.liveVersion(
          on: client, logger: logger)
        let total = try await AccountViewsRebuildStatements.accountCount(
          on: client, logger: logger)
        let version = try await AccountViewsRebuildStatements.begin(on: client, logger: logger)
        return (replaced, total, version)
      }
      let (accounts, events) = try await fill(
        version: version, total: total, pageSize: max(1, pageSize),
        concurrency: max(1, concurrency), now: now, progress: progress)
      let stale = try await withDatabase {
        try await AccountViewsRebuildStatements.switchLive(to: version, on: client, logger: logger)
      }
      for start in stride(from: 0, to: stale.count, by: 100) {
        try await refreshViews(of: Array(stale[start..<min(start + 100, stale.count)]), now: now)
      }
      let elapsed = ContinuousClock.now - started
      return AccountViewsRebuild(
        version: version, replacedVersion: replaced, accounts: accounts, events: events,
        projectedAfterSwitch: stale.count,
        seconds: elapsed.seconds)
    } catch {
      throw Self.mapped(error)
    }
  }

  /// Every version of the account views table, oldest first.
  public func accountViewsVersions() async throws(LedgerError) -> [AccountViewsVersion] {
    let (client, logger) = (self.client, self.logger)
    do {
      return try await withDatabase {
        try await AccountViewsRebuildStatements.versions(on: client, logger: logger)
      }
    } catch {
      throw Self.versionError(error)
    }
  }

  /// The accounts whose view differs between the live table and retired `version`.
  public func accountViewsDifferences(from version: Int) async throws(LedgerError)
    -> [AccountViewDifference]
  {
    let (client, logger) = (self.client, self.logger)
    do {
      return try await withDatabase {
        try await AccountViewsRebuildStatements.differences(
          from: version, on: client, logger: logger)
      }
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Drops a retired version's table.
  public func dropAccountViewsVersion(_ version: Int) async throws(LedgerError) {
    let (client, logger) = (self.client, self.logger)
    do {
      try await withDatabase {
        try await AccountViewsRebuildStatements.drop(version, on: client, logger: logger)
      }
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Fills version `version`, pages of accounts in token order, `concurrency` at once;
  /// returns how many accounts and events it projected.
  func fill(
    version: Int, total: Int, pageSize: Int, concurrency: Int, now: Date,
    progress: (@Sendable (RebuildProgress) -> Void)?
  ) async throws -> (accounts: Int, events: Int) {
    let (client, logger) = (self.client, self.logger)
    return try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      var (accounts, events, running, last) = (0, 0, 0, "")
      while true {
        let after = last
        let page = try await withDatabase {
          try await AccountViewsRebuildStatements.accounts(
            after: after, limit: pageSize, on: client, logger: logger)
        }
        guard let end = page.last else { break }
        last = end
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

  /// Projects one page of accounts into version `version`; returns (accounts, events).
  private func rebuild(_ tokens: [String], into version: Int, now: Date) async throws -> (
    Int, Int
  ) {
    let (client, logger, projection) = (self.client, self.logger, self.projection)
    let accounts = try await withDatabase {
      try await AccountViews.changesAndEvents(
        of: tokens, includingUnviewed: true, on: client, logger: logger)
    }
    let (instant, encoder) = (Timestamp(now), JSONEncoder())
    var events = 0
    let views = try accounts.map { token, account in
      events += account.events.count
      return try projectedView(
        of: token, changes: account.changes, events: account.events, at: instant,
        encoder: encoder)
    }
    try await withDatabase {
      try await AccountViewsRebuildStatements.store(
        views, version: version, projection: projection, on: client, logger: logger)
    }
    return (views.count, events)
  }

  /// The rebuild functions' refusals (a version that is not retired) as invalid requests.
  private static func versionError(_ error: any Error) -> LedgerError {
    if let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState],
      state == "SL010" || state == "SL011"
    {
      return LedgerError(
        .invalidRequest, psql.serverInfo?[.message] ?? "no such account views version")
    }
    return mapped(error)
  }
}
