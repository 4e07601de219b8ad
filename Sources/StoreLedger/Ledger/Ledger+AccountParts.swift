import Foundation
import NIOCore
import StoreLedgerCore

extension Ledger {
  /// The refunds and revocations of the account's purchases by `time` (reason, type,
  /// percentage, date, and whether a later transaction reversed them).
  public func revocations(
    for appAccountToken: String, at time: Date = Date(), environment: AppStoreEnvironment? = nil,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [RevocationView] {
    try await accountSnapshot(appAccountToken, at: time, environment, consistency).revocations
  }

  /// The account's non-consumable and non-renewing purchases at `time`, with what was paid
  /// and under which offer.
  public func purchases(
    for appAccountToken: String, at time: Date = Date(), environment: AppStoreEnvironment? = nil,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [PurchaseView] {
    try await accountSnapshot(appAccountToken, at: time, environment, consistency).purchases
  }

  /// The account's summary at `time` from one environment's events only.
  public func summary(
    for appAccountToken: String, at time: Date = Date(), environment: AppStoreEnvironment,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> AccountSummary {
    let token = try AppAccountToken.checked(appAccountToken)
    return AccountSummary(
      try await view(for: token, environment: environment, consistency: consistency), for: token,
      at: Timestamp(time))
  }

  /// One part of the account's summary at `time` from one environment's events only, as JSON
  /// (an array), like ``summaryJSON(_:for:at:)``. Always folded from the log.
  public func summaryJSON(
    _ part: AccountViewSlice.Part, for appAccountToken: String, at time: Date = Date(),
    environment: AppStoreEnvironment, consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> ByteBuffer {
    let summary = try await summary(
      for: appAccountToken, at: time, environment: environment, consistency: consistency)
    return AccountViewCache.Entry(summary, interval: StableInterval(from: nil, until: nil))
      .json(of: part)
  }

  /// The account's part of its view at `time`.
  private func accountSnapshot(
    _ appAccountToken: String, at time: Date, _ environment: AppStoreEnvironment?,
    _ consistency: ReadConsistency
  ) async throws(LedgerError) -> LedgerSnapshot {
    let token = try AppAccountToken.checked(appAccountToken)
    return try await view(for: token, environment: environment, consistency: consistency)
      .snapshot(at: Timestamp(time))
      .part(for: token)
  }
}
