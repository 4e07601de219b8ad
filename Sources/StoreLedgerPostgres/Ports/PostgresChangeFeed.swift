import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The change feed is `storeledger.changes`; its reads may go to a replica.
public struct PostgresChangeFeed: ChangeFeed {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func changes(
    after position: Int64, limit: Int, account: String?, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ChangePage> {
    let logger = database.logger
    return try await database.reading(account, consistency, "reading the change feed") { client in
      let records = try await ChangeFeedStatements.read(
        after: position, limit: limit, account: account, on: client, logger: logger)
      guard records.isEmpty, position > 0 else { return ChangePage(changes: records, count: nil) }
      let head = try await ChangeFeedStatements.head(on: client, logger: logger)
      return ChangePage(changes: records, count: head)
    }
  }

  public func newestChanges(
    of account: String, offset: Int, limit: Int, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ChangePage> {
    let logger = database.logger
    return try await database.reading(account, consistency, "reading an account's changes") {
      client in
      let (changes, total) = try await ChangeFeedStatements.newest(
        account: account, offset: offset, limit: limit, on: client, logger: logger)
      return ChangePage(changes: changes, count: Int64(total))
    }
  }

  public func changes(ofAccounts accounts: [String]) async throws(EventStoreError)
    -> [String: [ChangeRecord]]
  {
    try await database.primary("reading accounts' changes") { client, logger in
      try await ChangeFeedStatements.read(accounts: accounts, on: client, logger: logger)
    }
  }

  public func changes(at positions: [Int64]) async throws(EventStoreError) -> [ChangeRecord] {
    try await database.primary("reading changes") { client, logger in
      try await ChangeFeedStatements.read(positions: positions, on: client, logger: logger)
    }
  }

  public func head() async throws(EventStoreError) -> Int64 {
    try await database.primary("reading the change feed's head") { client, logger in
      try await ChangeFeedStatements.head(on: client, logger: logger)
    }
  }

  public func firstPosition(recordedSince time: Date) async throws(EventStoreError) -> Int64 {
    try await database.primary("finding a change by time") { client, logger in
      try await ChangeFeedStatements.firstPosition(recordedSince: time, on: client, logger: logger)
    }
  }
}
