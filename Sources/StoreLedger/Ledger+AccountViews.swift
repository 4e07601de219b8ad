import Foundation
import NIOCore
import StoreLedgerCore

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
    if consistency != .exact, let cached = views.viewCache?.entry(for: appAccountToken, at: instant)
    {
      return cached.summary
    }
    let epoch = views.viewCache?.readBegins() ?? 0
    let stored: ReadAnswer<AccountViewSlice?>
    do {
      stored = try await storage.accounts.storedView(
        of: appAccountToken, part: nil, consistency: consistency)
    } catch {
      throw LedgerStorage.mapped(error)
    }
    if let slice = stored.value,
      let summary = slice.summary(at: instant, projection: views.projection)
    {
      if stored.replica == nil {
        views.viewCache?.store(
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
    if view.replica == nil { views.viewCache?.store([(token, entry)], readAt: epoch) }
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
    if consistency != .exact, let cached = views.viewCache?.entry(for: appAccountToken, at: instant)
    {
      return cached.json(of: part)
    }
    let epoch = views.viewCache?.readBegins() ?? 0
    let stored: AccountViewSlice?
    do {
      stored = try await storage.accounts.storedView(
        of: appAccountToken, part: part, consistency: consistency
      ).value
    } catch {
      throw LedgerStorage.mapped(error)
    }
    if let stored, stored.isCurrent(at: instant, projection: views.projection),
      let json = stored.json
    {
      return ByteBuffer(bytes: json)
    }
    return try await folded(appAccountToken, at: instant, readAt: epoch, consistency).json(
      of: part)
  }
}
