import Foundation
import StoreLedgerCore
import Synchronization

/// Aliases in memory: one alias per account, one account per alias, as on PostgreSQL.
extension InMemoryLedgerStorage: AccountAliasStore {
  public func setAlias(_ alias: String, for token: String, by: String)
    async throws(EventStoreError) -> Bool
  {
    state.withLock { state in
      if let holder = state.aliasHolders[alias], holder != token { return false }
      if let earlier = state.aliases[token] { state.aliasHolders[earlier] = nil }
      state.aliases[token] = alias
      state.aliasHolders[alias] = token
      return true
    }
  }

  public func removeAlias(of token: String) async throws(EventStoreError) -> String? {
    state.withLock { state in
      guard let alias = state.aliases.removeValue(forKey: token) else { return nil }
      state.aliasHolders[alias] = nil
      return alias
    }
  }

  public func alias(of token: String) async throws(EventStoreError) -> String? {
    state.withLock { state in state.aliases[token] }
  }
}
