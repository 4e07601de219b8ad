import Foundation
import StoreLedgerCore

extension Ledger {
  /// The refunds and revocations of the account's purchases by `time` (reason, type,
  /// percentage, date, and whether a later transaction reversed them).
  public func revocations(for appAccountToken: String, at time: Date = Date())
    async throws(LedgerError) -> [RevocationView]
  {
    let token = try Self.canonical(appAccountToken)
    return try await view(for: token).snapshot(at: Timestamp(time)).part(for: token).revocations
  }
}
