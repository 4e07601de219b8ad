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
    try await summaries.summary(
      for: try AppAccountToken.checked(appAccountToken), at: time, consistency: consistency)
  }

  /// One part of the account's summary at `time` as JSON (an array), for the account API: the
  /// stored view's bytes when that view is current and holds at `time` (nothing decoded or
  /// encoded again), else folded from the log like ``summary(for:at:consistency:)``.
  public func summaryJSON(
    _ part: AccountViewSlice.Part, for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> ByteBuffer {
    try await summaries.summaryJSON(
      part, for: try AppAccountToken.checked(appAccountToken), at: time, consistency: consistency)
  }
}
