import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// The account's summary at `time`: from its stored view when that view is current and
  /// holds at `time`, else folded from the log (so an ingest that has returned is always
  /// reflected, whether or not the projector has caught up).
  public func summary(for appAccountToken: String, at time: Date = Date())
    async throws(LedgerError) -> AccountSummary
  {
    let instant = Timestamp(time)
    let stored: StoredAccountView?
    do {
      let (client, logger) = (self.client, self.logger)
      stored = try await withDatabase {
        try await AccountViews.stored(appAccountToken, on: client, logger: logger)
      }
    } catch {
      throw Self.mapped(error)
    }
    if let summary = stored?.summary(at: instant, projection: projection) { return summary }
    return AccountSummary(try await view(for: appAccountToken), for: appAccountToken, at: instant)
  }

  /// Projects the views of `tokens` from the log as it is now and stores them, in two
  /// statements; returns how many accounts had a view row to hold one (an account no append
  /// ever named has none).
  @discardableResult
  func refreshViews(of tokens: [String], now: Date = Date()) async throws -> Int {
    guard !tokens.isEmpty else { return 0 }
    let (client, logger, projection) = (self.client, self.logger, self.projection)
    let accounts = try await withDatabase {
      try await AccountViews.changesAndEvents(of: tokens, on: client, logger: logger)
    }
    let instant = Timestamp(now)
    let encoder = JSONEncoder()
    var views: [AccountViews.ProjectedView] = []
    for (token, account) in accounts {
      let view = LedgerView(
        LedgerState.fold(account.events), catalog: configuration.catalog,
        options: configuration.options)
      let summary = try encoder.encode(AccountSummary(view, for: token, at: instant))
      views.append(
        .init(
          token: token, changes: account.changes,
          summaryJSON: String(decoding: summary, as: UTF8.self),
          interval: view.stableInterval(around: instant)))
    }
    let projected = views
    _ = try await withDatabase {
      try await AccountViews.store(projected, projection: projection, on: client, logger: logger)
    }
    return views.count
  }

  /// Projects every account's view again from the log (after a restore, or to check the
  /// stored ones), including accounts whose view row is missing. Returns how many accounts
  /// were projected.
  @discardableResult
  public func rebuildAccountViews(pageSize: Int = 500) async throws(LedgerError) -> Int {
    let (client, logger) = (self.client, self.logger)
    do {
      _ = try await withDatabase {
        try await client.execute(
          """
          INSERT INTO storeledger.account_views (app_account_token, changes)
          SELECT DISTINCT app_account_token, 1 FROM storeledger.account_streams
          ON CONFLICT (app_account_token) DO NOTHING
          """, logger: logger)
      }
      var projected = 0
      var last = ""
      while true {
        let after = last
        let page = try await withDatabase {
          try await AccountViews.accounts(after: after, limit: pageSize, on: client, logger: logger)
        }
        guard let end = page.last else { return projected }
        projected += try await refreshViews(of: page)
        last = end
      }
    } catch {
      throw Self.mapped(error)
    }
  }
}
