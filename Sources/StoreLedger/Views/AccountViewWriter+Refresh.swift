import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension AccountViewWriter {
  /// Projects the views of `tokens` from the log as it is now and stores them, in two
  /// statements; returns how many accounts had a view row to hold one (an account no append
  /// ever named has none).
  @discardableResult
  func refreshViews(of tokens: [String], now: Date = Date()) async throws -> Int {
    guard !tokens.isEmpty else { return 0 }
    let (client, logger, projection) = (
      try storage.database().client, storage.logger, self.projection
    )
    let epoch = viewCache?.readBegins() ?? 0
    let accounts = try await storage.bounded {
      try await AccountViews.changesAndEvents(of: tokens, on: client, logger: logger)
    }
    let instant = Timestamp(now)
    let horizon = Self.changeHorizon(at: now)
    let derivations = accounts.sorted { $0.key < $1.key }.map { token, account in
      (token, account, derivation(of: token, account, through: horizon))
    }
    let views = derivations.map { token, account, derivation in
      projectedView(
        of: token, changes: account.changes,
        state: derivation.state ?? LedgerState.fold(account.events), at: instant)
    }
    let projected = views
    _ = try await storage.bounded {
      try await AccountViews.store(projected, projection: projection, on: client, logger: logger)
    }
    viewCache?.store(
      views.map { ($0.token, AccountViewCache.Entry($0.summary, interval: $0.interval)) },
      readAt: epoch)
    try await appendChanges(derivations.compactMap(\.2.derived))
    return views.count
  }

  /// One account's view folded from its stored events' facts, ready to store.
  func projectedView(
    of token: String, changes: Int64, inputs: [FoldInput], at instant: Timestamp
  ) -> AccountViews.ProjectedView {
    projectedView(of: token, changes: changes, state: LedgerState.fold(inputs), at: instant)
  }

  func projectedView(
    of token: String, changes: Int64, state: LedgerState, at instant: Timestamp
  ) -> AccountViews.ProjectedView {
    let view = LedgerView(state, catalog: configuration.catalog, options: configuration.options)
    let summary = AccountSummary(view, for: token, at: instant)
    return AccountViews.ProjectedView(
      token: token, changes: changes, summary: summary, summaryJSON: summary.jsonText,
      interval: view.stableInterval(around: instant))
  }
}
