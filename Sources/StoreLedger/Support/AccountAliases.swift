import Foundation
import StoreLedgerCore

/// The backend's own id for each account (its user id), as the backend tells StoreLedger, so
/// support finds a customer by the id their own systems show. One alias per account, one
/// account per alias. A lookup hint, not evidence: it is not in the log, and an erasure of the
/// account removes it.
public struct AccountAliases: Sendable {
  let aliases: any AccountAliasStore
  let calls: StorageCalls

  /// Gives the account `alias`, replacing its earlier one. Another account's alias is a
  /// `conflict`; an empty or over-long alias, or one with control characters,
  /// `invalidRequest`.
  public func set(_ alias: String, for appAccountToken: String, by: String)
    async throws(LedgerError) -> String
  {
    let token = try AppAccountToken.checked(appAccountToken)
    let alias = try Self.alias(alias)
    let store = aliases
    let who = by.trimmingCharacters(in: .whitespaces).isEmpty ? "api" : String(by.prefix(200))
    guard try await calls.run({ try await store.setAlias(alias, for: token, by: who) })
    else {
      throw LedgerError(
        .conflict,
        "another account has the alias \(alias): remove it there first (an alias names one "
          + "account)")
    }
    return alias
  }

  /// Removes the account's alias; the alias it had, if any.
  public func remove(for appAccountToken: String) async throws(LedgerError) -> String? {
    let token = try AppAccountToken.checked(appAccountToken)
    let store = aliases
    return try await calls.run { try await store.removeAlias(of: token) }
  }

  /// The account's alias, if it has one.
  public func alias(of appAccountToken: String) async throws(LedgerError) -> String? {
    let token = try AppAccountToken.checked(appAccountToken)
    let store = aliases
    return try await calls.run { try await store.alias(of: token) }
  }

  static func alias(_ text: String) throws(LedgerError) -> String {
    let alias = text.trimmingCharacters(in: .whitespacesAndNewlines)
    // Counted in code points, as the database's length() and the document's maxLength count
    // (characters would let 200 letters with combining marks through, which the table refuses).
    guard !alias.isEmpty, alias.unicodeScalars.count <= 200,
      !alias.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw LedgerError(
        .invalidRequest,
        "an alias is your own id for the account: 1 to 200 characters, no control characters")
    }
    return alias
  }

}
