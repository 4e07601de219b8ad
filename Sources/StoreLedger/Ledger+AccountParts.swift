import Foundation
import NIOCore
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// The refunds and revocations of the account's purchases by `time` (reason, type,
  /// percentage, date, and whether a later transaction reversed them).
  public func revocations(
    for appAccountToken: String, at time: Date = Date(), environment: AppStoreEnvironment? = nil
  ) async throws(LedgerError) -> [RevocationView] {
    try await accountSnapshot(appAccountToken, at: time, environment: environment).revocations
  }

  /// The account's non-consumable and non-renewing purchases at `time`, with what was paid
  /// and under which offer.
  public func purchases(
    for appAccountToken: String, at time: Date = Date(), environment: AppStoreEnvironment? = nil
  ) async throws(LedgerError) -> [PurchaseView] {
    try await accountSnapshot(appAccountToken, at: time, environment: environment).purchases
  }

  /// The account's summary at `time` from one environment's events only.
  public func summary(
    for appAccountToken: String, at time: Date = Date(), environment: AppStoreEnvironment
  ) async throws(LedgerError) -> AccountSummary {
    let token = try Self.canonical(appAccountToken)
    return AccountSummary(
      try await view(for: token, environment: environment), for: token, at: Timestamp(time))
  }

  /// One part of the account's summary at `time` from one environment's events only, as JSON
  /// (an array), like ``summaryJSON(_:for:at:)``. Always folded from the log.
  public func summaryJSON(
    _ part: AccountViewSlice.Part, for appAccountToken: String, at time: Date = Date(),
    environment: AppStoreEnvironment
  ) async throws(LedgerError) -> ByteBuffer {
    let summary = try await summary(for: appAccountToken, at: time, environment: environment)
    return AccountViewCache.Entry(summary, interval: StableInterval(from: nil, until: nil))
      .json(of: part)
  }

  /// The account's part of its view at `time`.
  private func accountSnapshot(
    _ appAccountToken: String, at time: Date, environment: AppStoreEnvironment?
  ) async throws(LedgerError) -> LedgerSnapshot {
    let token = try Self.canonical(appAccountToken)
    return try await view(for: token, environment: environment).snapshot(at: Timestamp(time))
      .part(for: token)
  }
}
