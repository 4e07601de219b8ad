import Foundation
import StoreLedgerCore

/// Erases customers' personal data from the log and every derived table while the log stays
/// provable: erased rows keep their place and hashes, the erasure is itself an event, and the
/// audit checks both. Runs in the database as its owner role (`storeledger.erase_accounts`):
/// a connection whose role may not execute it gets `erasure_not_permitted`.
public struct AccountErasure: Sendable {
  let store: any AccountErasureStore
  let calls: StorageCalls
  let written: WrittenAccounts

  /// Erases the accounts of `appAccountTokens` (accounts sharing purchases go together).
  /// Idempotent: accounts erased before, with nothing naming them since, answer
  /// ``ErasureReceipt/Outcome/alreadyErased`` and change nothing.
  public func erase(
    _ appAccountTokens: [String], reason: String, requestedBy: String,
    later: LaterDataRule = .quarantine, erasureId: UUID = UUID()
  ) async throws(LedgerError) -> ErasureReceipt {
    guard !appAccountTokens.isEmpty else {
      throw LedgerError(.invalidRequest, "an erasure names at least one appAccountToken")
    }
    var tokens: [String] = []
    for token in appAccountTokens { tokens.append(try AppAccountToken.checked(token)) }
    let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
    let requestedBy = requestedBy.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !reason.isEmpty, reason.count <= 500 else {
      throw LedgerError(
        .invalidRequest,
        "`reason` says why the data is erased (for example \"GDPR Art. 17 request\"), in 1–500 "
          + "characters, without the customer's personal data")
    }
    guard !requestedBy.isEmpty, requestedBy.count <= 200 else {
      throw LedgerError(
        .invalidRequest,
        "`requestedBy` names who asked for the erasure (a person or ticket), in 1–200 characters")
    }
    let request = ErasureRequest(
      appAccountTokens: tokens, erasureId: erasureId, requestedBy: requestedBy, reason: reason,
      later: later)
    let receipt: ErasureReceipt
    do {
      receipt = try await store.erase(request)
    } catch {
      throw Self.mapped(error)
    }
    written.changed(tokens)
    return receipt
  }

  /// Every erasure the log records, oldest first, with what the log holds for it now.
  public func erasures() async throws(LedgerError) -> [ErasureRecord] {
    do {
      return try await store.erasures()
    } catch {
      throw Self.mapped(error)
    }
  }

  /// The erasure that erased the account of `appAccountToken`, if one did.
  public func erasure(ofAccount appAccountToken: String) async throws(LedgerError)
    -> ErasureRecord?
  {
    let token = try AppAccountToken.checked(appAccountToken)
    let store = self.store
    guard let id = try await calls.run({ try await store.erasure(ofAccount: token) })
    else { return nil }
    return try await erasures().last { $0.erasureId == id }
  }

  static func mapped(_ error: EventStoreError) -> LedgerError {
    switch error.code {
    case .unknownAccount:
      return LedgerError(
        .notFound,
        "\(error.message): check the token with `storeledger entitlements TOKEN`; nothing was "
          + "erased")
    case .sharedAccountData:
      return LedgerError(.sharedWithOtherAccounts, error.message)
    case .invalidConfiguration:
      return LedgerError(.notConfigured, error.message)
    case _ where error.sqlState == "SL022":
      return LedgerError(.invalidRequest, error.message)
    case _ where error.sqlState == "42501":
      return LedgerError(
        .erasureNotPermitted,
        "erasure runs as the database's owner role: run `storeledger erase` with a login that "
          + "is a member of storeledger_owner, or let the server's role erase with GRANT EXECUTE "
          + "ON FUNCTION storeledger.erase_accounts(text[], uuid, text, text, text) TO <role>; "
          + "nothing was erased")
    default:
      return LedgerStorage.mapped(error)
    }
  }
}
