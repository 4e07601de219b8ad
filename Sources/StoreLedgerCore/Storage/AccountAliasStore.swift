/// The backend's own id for an account (its user id), as the backend told StoreLedger: one
/// alias per account, one account per alias. A lookup hint, not evidence: it is not in the log.
public protocol AccountAliasStore: Sendable {
  /// Gives the account `alias` (replacing its earlier one); false, changing nothing, when
  /// another account holds it.
  func setAlias(_ alias: String, for token: String, by: String) async throws(EventStoreError)
    -> Bool

  /// Removes the account's alias; the alias it had, if any.
  func removeAlias(of token: String) async throws(EventStoreError) -> String?

  /// The account's alias, if it has one.
  func alias(of token: String) async throws(EventStoreError) -> String?
}
