import Foundation
import NIOCore
import StoreLedgerCore

/// An account's summary at an instant, as the account API answers it: from this process's
/// cache, else the stored view when it is current and holds at that instant, else folded
/// from the log. The answers never lag the log: an ingest that has returned is reflected.
struct AccountSummaries: Sendable {
  let reader: AccountReader
  /// The views of this process's projector, by account; nil: none kept.
  let viewCache: AccountViewCache?
  /// The projection's fingerprint: a stored view of another is not current.
  let projection: String

  /// The account's summary at `time` (`appAccountToken` canonical): from its stored view when that view is current and
  /// holds at `time`, else folded from the log (so an ingest that has returned is always
  /// reflected, whether or not the projector has caught up). A replica may answer (see
  /// ``ReadReplicas``) unless `consistency` is `exact`.
  func summary(
    for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> AccountSummary {
    let instant = Timestamp(time)
    if consistency != .exact, let cached = viewCache?.entry(for: appAccountToken, at: instant) {
      return cached.summary
    }
    let epoch = viewCache?.readBegins() ?? 0
    let stored: ReadAnswer<AccountViewSlice?>
    do {
      stored = try await reader.accounts.storedView(
        of: appAccountToken, part: nil, consistency: consistency)
    } catch {
      throw LedgerStorage.mapped(error)
    }
    if let slice = stored.value,
      let summary = slice.summary(at: instant, projection: projection)
    {
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
    let view = try await reader.read(token, consistency: consistency)
    let entry = AccountViewCache.Entry(
      AccountSummary(view.value, for: token, at: instant),
      interval: view.value.stableInterval(around: instant))
    if view.replica == nil { viewCache?.store([(token, entry)], readAt: epoch) }
    return entry
  }

  /// One part of the account's summary at `time` as JSON (an array), for the account API: the
  /// stored view's bytes when that view is current and holds at `time` (nothing decoded or
  /// encoded again), else folded from the log like ``summary(for:at:consistency:)``.
  func summaryJSON(
    _ part: AccountViewSlice.Part, for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> ByteBuffer {
    let instant = Timestamp(time)
    if consistency != .exact, let cached = viewCache?.entry(for: appAccountToken, at: instant) {
      return cached.json(of: part)
    }
    let epoch = viewCache?.readBegins() ?? 0
    let stored: AccountViewSlice?
    do {
      stored = try await reader.accounts.storedView(
        of: appAccountToken, part: part, consistency: consistency
      ).value
    } catch {
      throw LedgerStorage.mapped(error)
    }
    if let stored, stored.isCurrent(at: instant, projection: projection),
      let json = stored.json
    {
      return ByteBuffer(bytes: json)
    }
    return try await folded(appAccountToken, at: instant, readAt: epoch, consistency).json(
      of: part)
  }
}
