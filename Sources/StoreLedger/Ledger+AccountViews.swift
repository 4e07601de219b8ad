import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// The account's summary at `time`: from its stored view when that view is current and
  /// holds at `time`, else folded from the log (so an ingest that has returned is always
  /// reflected, whether or not the projector has caught up). A replica may answer (see
  /// ``ReadReplicas``) unless `consistency` is `exact`.
  public func summary(
    for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> AccountSummary {
    let appAccountToken = try Self.canonical(appAccountToken)
    let instant = Timestamp(time)
    if consistency != .exact, let cached = viewCache?.entry(for: appAccountToken, at: instant) {
      return cached.summary
    }
    let epoch = viewCache?.readBegins() ?? 0
    let stored: ReadReplicas.Answer<AccountViewSlice?>
    do {
      let logger = storage.logger
      stored = try await storage.reading(appAccountToken, consistency) { client in
        try await AccountViewSlice.readWhole(of: appAccountToken, on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
    if let slice = stored.value, let summary = slice.summary(at: instant, projection: projection) {
      if stored.replica == nil {
        viewCache?.store(
          [(appAccountToken, AccountViewCache.Entry(summary, interval: slice.interval))],
          readAt: epoch)
      }
      return summary
    }
    return try await folded(appAccountToken, at: instant, readAt: epoch, consistency).summary
  }

  /// The account folded from the log, its summary at `instant` kept in the cache for the
  /// span it holds (when the primary answered and no local ingest named the account since
  /// `epoch`). A replica's answer is never cached: the cache follows the primary's feed, and
  /// a lagging replica's view must not outlive the read.
  private func folded(
    _ token: String, at instant: Timestamp, readAt epoch: UInt64,
    _ consistency: ReadConsistency
  ) async throws(LedgerError) -> AccountViewCache.Entry {
    let view = try await viewRead(for: token, consistency: consistency)
    let entry = AccountViewCache.Entry(
      AccountSummary(view.value, for: token, at: instant),
      interval: view.value.stableInterval(around: instant))
    if view.replica == nil { viewCache?.store([(token, entry)], readAt: epoch) }
    return entry
  }

  /// One part of the account's summary at `time` as JSON (an array), for the account API: the
  /// stored view's bytes when that view is current and holds at `time` (nothing decoded or
  /// encoded again), else folded from the log like ``summary(for:at:consistency:)``.
  public func summaryJSON(
    _ part: AccountViewSlice.Part, for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> ByteBuffer {
    let appAccountToken = try Self.canonical(appAccountToken)
    let instant = Timestamp(time)
    if consistency != .exact, let cached = viewCache?.entry(for: appAccountToken, at: instant) {
      return cached.json(of: part)
    }
    let epoch = viewCache?.readBegins() ?? 0
    let stored: AccountViewSlice?
    do {
      let logger = storage.logger
      stored = try await storage.reading(appAccountToken, consistency) { client in
        try await AccountViewSlice.read(part, of: appAccountToken, on: client, logger: logger)
      }.value
    } catch {
      throw LedgerStorage.mapped(error)
    }
    if let stored, stored.isCurrent(at: instant, projection: projection), let json = stored.json {
      return json
    }
    return try await folded(appAccountToken, at: instant, readAt: epoch, consistency).json(
      of: part)
  }

  /// Projects the views of `tokens` from the log as it is now and stores them, in two
  /// statements; returns how many accounts had a view row to hold one (an account no append
  /// ever named has none).
  @discardableResult
  func refreshViews(of tokens: [String], now: Date = Date()) async throws -> Int {
    guard !tokens.isEmpty else { return 0 }
    let (client, logger, projection) = (storage.client, storage.logger, self.projection)
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
