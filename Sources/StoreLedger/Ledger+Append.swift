import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// The canonical (lower-case) form of a token the caller supplies; refused with
  /// `invalid_request` when it is not a UUID, before anything is read or written.
  static func canonical(_ appAccountToken: String) throws(LedgerError) -> String {
    guard let token = AppAccountToken.canonical(appAccountToken) else {
      throw LedgerError(
        .invalidRequest,
        "an appAccountToken is a UUID, such as \(AppAccountToken.example) (any case)")
    }
    return token
  }
}

extension Ledger.Ingested {
  /// The first (usually only) event of an append.
  init(_ result: AppendResult) {
    let stored = result.events[0]
    self.init(
      streamId: result.streamId, idempotencyKey: stored.idempotencyKey,
      streamVersion: stored.streamVersion, wasDuplicate: result.wasDuplicate)
  }
}
