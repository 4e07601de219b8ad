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

  /// Projects the account's view from the log as it is now and stores it; false when no
  /// append ever named the account (it has no row to hold a view).
  @discardableResult
  func refreshView(of appAccountToken: String, now: Date = Date()) async throws -> Bool {
    let (client, logger) = (self.client, self.logger)
    // One snapshot for the count and the events, so the stored view includes exactly the
    // changes it claims to.
    let (changes, events) = try await withDatabase {
      try await client.inTransaction(
        logger: logger, beginning: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
      ) { connection in
        let changes = try await AccountViews.changes(
          of: appAccountToken, on: connection, logger: logger)
        guard changes != nil else { return (changes, [LedgerEvent]()) }
        return (
          changes, try await AccountEvents.read(appAccountToken, on: connection, logger: logger)
        )
      }
    }
    guard let changes else { return false }
    let view = LedgerView(
      LedgerState.fold(events), catalog: configuration.catalog, options: configuration.options)
    let instant = Timestamp(now)
    let json = String(
      decoding: try JSONEncoder().encode(AccountSummary(view, for: appAccountToken, at: instant)),
      as: UTF8.self)
    let projection = self.projection
    _ = try await withDatabase {
      try await AccountViews.store(
        appAccountToken, summaryJSON: json, interval: view.stableInterval(around: instant),
        changes: changes, projection: projection, on: client, logger: logger)
    }
    return true
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
        for token in page where try await refreshView(of: token) { projected += 1 }
        last = end
      }
    } catch {
      throw Self.mapped(error)
    }
  }
}
