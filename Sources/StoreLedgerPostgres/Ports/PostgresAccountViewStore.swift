import Logging
import PostgresNIO
import StoreLedgerCore

/// The stored views and the change derivations live in `storeledger.account_views` and
/// `storeledger.change_derivations`, on the primary.
public struct PostgresAccountViewStore: AccountViewStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func inputs(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountInput]
  {
    try await database.primary("reading accounts to project") { client, logger in
      try await AccountViewStatements.changesAndEvents(of: tokens, on: client, logger: logger)
    }
  }

  @discardableResult
  public func store(_ views: [ProjectedAccountView], projection: String)
    async throws(EventStoreError) -> Int
  {
    try await database.primary("storing account views") { client, logger in
      try await AccountViewStatements.store(
        views, projection: projection, on: client, logger: logger)
    }
  }

  @discardableResult
  public func appendChanges(_ accounts: [DerivedAccountChanges]) async throws(EventStoreError)
    -> Set<String>
  {
    try await database.primary("appending changes") { client, logger in
      try await ChangeFeedStatements.append(accounts, on: client, logger: logger)
    }
  }

  public func expired(at time: Timestamp, limit: Int) async throws(EventStoreError) -> [String] {
    try await database.primary("finding ended views") { client, logger in
      try await AccountViewStatements.expired(at: time, limit: limit, on: client, logger: logger)
    }
  }

  public func foreign(to projection: String, limit: Int) async throws(EventStoreError)
    -> [String]
  {
    try await database.primary("finding views of other rules") { client, logger in
      try await AccountViewStatements.foreign(
        to: projection, limit: limit, on: client, logger: logger)
    }
  }

  public func changesDue(at time: Timestamp, limit: Int) async throws(EventStoreError)
    -> [String]
  {
    try await database.primary("finding due changes") { client, logger in
      try await ChangeFeedStatements.due(at: time, limit: limit, on: client, logger: logger)
    }
  }

  public func underived(limit: Int) async throws(EventStoreError) -> [String] {
    try await database.primary("finding underived accounts") { client, logger in
      try await ChangeFeedStatements.underived(limit: limit, on: client, logger: logger)
    }
  }

  public func accounts(after token: String, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [String]
  {
    try await database.primary("listing accounts") { client, logger in
      try await AccountViewStatements.accounts(
        after: token, limit: limit, shard: shard, on: client, logger: logger)
    }
  }

  public func storedViews(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountViewSlice]
  {
    try await database.primary("reading stored views") { client, logger in
      try await AccountViewSlice.readWhole(of: tokens, on: client, logger: logger)
    }
  }

  public func statusHistories(of tokens: [String]) async throws(EventStoreError)
    -> [String: [StatusTransitionRow]]
  {
    try await database.primary("reading status histories") { client, logger in
      try await AccountViewStatements.statusHistories(of: tokens, on: client, logger: logger)
    }
  }
}
