import Logging
import PostgresNIO
import StoreLedgerCore

/// Maintenance on PostgreSQL: the hash chain is checked by a statement, and a rebuild fills a
/// new version of `storeledger.account_views` beside the live one.
public struct PostgresMaintenanceStore: MaintenanceStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func checkHashChain(shard: WorkShard) async throws(EventStoreError) -> HashChainReport {
    let store = database.store
    return try await database.onPrimary("checking the hash chain") { _ in
      try await store.checkHashChain(shard: shard)
    }
  }

  public func leaves(after position: FeedPosition, limit: Int) async throws(EventStoreError)
    -> [LogLeaf]
  {
    let store = database.store
    return try await database.onPrimary("reading the log's row hashes") { _ in
      try await store.readLeaves(after: position, limit: limit)
    }
  }

  public func events(after position: FeedPosition, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [RecordedEvent]
  {
    let store = database.store
    return try await database.onPrimary("reading the feed") { _ in
      try await store.readFeed(after: position, limit: limit, shard: shard)
    }
  }

  public func beginViewsVersion() async throws(EventStoreError) -> Int {
    try await database.primary("beginning a views version") { client, logger in
      try await AccountViewsRebuildStatements.begin(on: client, logger: logger)
    }
  }

  public func liveViewsVersion() async throws(EventStoreError) -> Int? {
    try await database.primary("reading the live views version") { client, logger in
      try await AccountViewsRebuildStatements.liveVersion(on: client, logger: logger)
    }
  }

  public func accountCount() async throws(EventStoreError) -> Int {
    try await database.primary("counting accounts") { client, logger in
      try await AccountViewsRebuildStatements.accountCount(on: client, logger: logger)
    }
  }

  public func store(
    _ views: [ProjectedAccountView], intoVersion version: Int, projection: String
  ) async throws(EventStoreError) {
    try await database.primary("storing rebuilt views") { client, logger in
      try await AccountViewsRebuildStatements.store(
        views, version: version, projection: projection, on: client, logger: logger)
    }
  }

  public func switchLive(to version: Int) async throws(EventStoreError) -> [String] {
    let logger = database.logger
    return try await refusingVersions("switching the live views version") { client in
      try await AccountViewsRebuildStatements.switchLive(to: version, on: client, logger: logger)
    }
  }

  public func dropViewsVersion(_ version: Int) async throws(EventStoreError) {
    let logger = database.logger
    try await refusingVersions("dropping a views version") { client in
      try await AccountViewsRebuildStatements.drop(version, on: client, logger: logger)
    }
  }

  public func viewsVersions() async throws(EventStoreError) -> [AccountViewsVersion] {
    try await database.primary("listing views versions") { client, logger in
      try await AccountViewsRebuildStatements.versions(on: client, logger: logger)
    }
  }

  public func viewDifferences(from version: Int) async throws(EventStoreError)
    -> [AccountViewDifference]
  {
    try await database.primary("comparing views versions") { client, logger in
      try await AccountViewsRebuildStatements.differences(
        from: version, on: client, logger: logger)
    }
  }

  /// On one connection in one repeatable-read transaction (every page reads the same
  /// snapshot), without the timeout: the caller folds and stores between pages.
  public func withAccountEventPages<Result: Sendable>(
    shard: WorkShard, pageSize: Int,
    _ body: @escaping @Sendable (AccountEventPages) async throws -> Result
  ) async throws -> Result {
    let logger = database.logger
    return try await database.client.inTransaction(
      logger: logger, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    ) { connection in
      let reader = AccountEventPageReader(pageSize: pageSize) { token, stream, limit in
        try await connection.query(
          AccountViewsRebuildStatements.accountsEventsPage(
            after: token, stream: stream, limit: limit, shard: shard),
          logger: logger, reading: { $0 })
      }
      return try await body(AccountEventPages { try await reader.next() })
    }
  }

  public func unroutedPayloads() async throws(EventStoreError) -> [String] {
    try await database.primary("reading unrouted notifications") { client, logger in
      try await NotUnderstoodStatements.unroutedPayloads(on: client, logger: logger)
    }
  }

  public func purchaseStreams() async throws(EventStoreError) -> [String] {
    try await database.primary("listing purchase streams") { client, logger in
      try await LogStatements.purchaseStreams(on: client, logger: logger)
    }
  }

  public func streams(startingWith eventType: String) async throws(EventStoreError)
    -> [String]
  {
    try await database.primary("listing streams") { client, logger in
      try await LogStatements.streams(startingWith: eventType, on: client, logger: logger)
    }
  }

  public func streams(of account: String) async throws(EventStoreError) -> [String] {
    try await database.primary("listing an account's streams") { client, logger in
      try await AccountEvents.streams(of: account, on: client, logger: logger)
    }
  }

  /// `body` on the primary, the database's refusal of a version as `viewsVersionRefused`.
  private func refusingVersions<Value: Sendable>(
    _ action: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws(EventStoreError) -> Value {
    try await database.onPrimary(action) { client in
      do {
        return try await body(client)
      } catch let error as PSQLError {
        guard let state = error.serverInfo?[.sqlState], state == "SL010" || state == "SL011"
        else { throw error }
        throw EventStoreError(
          .viewsVersionRefused, error.serverInfo?[.message] ?? "no such account views version",
          sqlState: state)
      }
    }
  }
}
