import Logging
import PostgresNIO
import StoreLedgerCore

/// The stored views and the change derivations live in `storeledger.account_views` and
/// `storeledger.change_derivations`, on the primary.
extension PostgresLedgerDatabase: AccountViewStore {
  public func inputs(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountInput]
  {
    let logger = self.logger
    return try await onPrimary("reading accounts to project") { client in
      try await AccountViewStatements.changesAndEvents(of: tokens, on: client, logger: logger)
    }
  }

  @discardableResult
  public func store(_ views: [ProjectedAccountView], projection: String)
    async throws(EventStoreError) -> Int
  {
    let logger = self.logger
    return try await onPrimary("storing account views") { client in
      try await AccountViewStatements.store(
        views, projection: projection, on: client, logger: logger)
    }
  }

  @discardableResult
  public func appendChanges(_ accounts: [DerivedAccountChanges]) async throws(EventStoreError)
    -> Set<String>
  {
    let logger = self.logger
    return try await onPrimary("appending changes") { client in
      try await ChangeFeedStatements.append(accounts, on: client, logger: logger)
    }
  }

  public func expired(at time: Timestamp, limit: Int) async throws(EventStoreError) -> [String] {
    let logger = self.logger
    return try await onPrimary("finding ended views") { client in
      try await AccountViewStatements.expired(at: time, limit: limit, on: client, logger: logger)
    }
  }

  public func foreign(to projection: String, limit: Int) async throws(EventStoreError)
    -> [String]
  {
    let logger = self.logger
    return try await onPrimary("finding views of other rules") { client in
      try await AccountViewStatements.foreign(
        to: projection, limit: limit, on: client, logger: logger)
    }
  }

  public func changesDue(at time: Timestamp, limit: Int) async throws(EventStoreError)
    -> [String]
  {
    let logger = self.logger
    return try await onPrimary("finding due changes") { client in
      try await ChangeFeedStatements.due(at: time, limit: limit, on: client, logger: logger)
    }
  }

  public func underived(limit: Int) async throws(EventStoreError) -> [String] {
    let logger = self.logger
    return try await onPrimary("finding underived accounts") { client in
      try await ChangeFeedStatements.underived(limit: limit, on: client, logger: logger)
    }
  }

  public func accounts(after token: String, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [String]
  {
    let logger = self.logger
    return try await onPrimary("listing accounts") { client in
      try await AccountViewStatements.accounts(
        after: token, limit: limit, shard: shard, on: client, logger: logger)
    }
  }

  public func storedViews(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountViewSlice]
  {
    let logger = self.logger
    return try await onPrimary("reading stored views") { client in
      try await AccountViewSlice.readWhole(of: tokens, on: client, logger: logger)
    }
  }
}
