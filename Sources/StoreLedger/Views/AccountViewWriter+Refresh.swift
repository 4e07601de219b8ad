import Foundation
import StoreLedgerCore

extension AccountViewWriter {
  /// Projects the views of `tokens` from the log as it is now and stores them, in two
  /// statements; returns how many accounts had a view row to hold one (an account no append
  /// ever named has none).
  @discardableResult
  func refreshViews(of tokens: [String], now: Date = Date()) async throws -> Int {
    guard !tokens.isEmpty else { return 0 }
    let (store, projection) = (views, self.projection)
    let epoch = viewCache?.readBegins() ?? 0
    let accounts = try await store.inputs(of: tokens)
    let instant = Timestamp(now)
    let horizon = Self.changeHorizon(at: now)
    let derivations = accounts.sorted { $0.key < $1.key }.map { token, account in
      (token, account, derivation(of: token, account, through: horizon))
    }
    let views = derivations.map { token, account, derivation in
      let state = derivation.state ?? LedgerState.fold(account.events)
      var view = projectedView(of: token, changes: account.changes, state: state, at: instant)
      view.history = history(
        of: token, account.events, state: state, through: instant, continuing: historyCache)
      return view
    }
    try await store.store(views, projection: projection)
    viewCache?.store(
      views.map { ($0.token, AccountViewCache.Entry($0.summary, interval: $0.interval)) },
      readAt: epoch)
    try await appendChanges(derivations.compactMap(\.2.derived))
    return views.count
  }

  /// The account's status history through `instant`; empty without a subscription, so an
  /// account of one-time purchases costs no second derivation. With `cache`, the derivation
  /// kept from the account's last refresh goes on with its new events when they happened after
  /// all it took (the live case: one event folded, not the whole log); otherwise, and for the
  /// rebuild and the audit, it is derived whole.
  func history(
    of token: String, _ events: [LedgerEvent], state: LedgerState, through instant: Timestamp,
    continuing cache: StatusHistoryCache? = nil
  ) -> [StatusTransitionRow] {
    guard
      !state.subscriptions.isEmpty
        || state.transactions.values.contains(where: { $0.facts.expiresDate != nil })
    else {
      cache?.forget(token)
      return []
    }
    guard let cache else {
      return StatusHistory.derive(
        token: token, catalog: configuration.catalog, options: configuration.options,
        events: events, through: instant)
    }
    var derivation =
      cache.derivation(of: token, continuing: events)
      ?? StatusHistoryDerivation(
        token: token, catalog: configuration.catalog, options: configuration.options)
    derivation.take(Array(events[derivation.taken...]), recordedBy: instant)
    cache.keep(derivation, of: token, lastKey: events.last?.key)
    return derivation.history(through: instant)
  }

  /// One account's view of `state`, ready to store.
  func projectedView(
    of token: String, changes: Int64, state: LedgerState, at instant: Timestamp
  ) -> ProjectedAccountView {
    let view = LedgerView(state, catalog: configuration.catalog, options: configuration.options)
    let summary = AccountSummary(view, for: token, at: instant)
    return ProjectedAccountView(
      token: token, changes: changes, summary: summary, summaryJSON: summary.jsonText,
      interval: view.stableInterval(around: instant))
  }
}
