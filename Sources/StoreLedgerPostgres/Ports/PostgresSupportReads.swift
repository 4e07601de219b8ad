import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Support's reads across accounts; searches and the overview may go to a replica.
public struct PostgresSupportReads: SupportReads {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func accounts(
    matching query: String, environments: [String], consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<[AccountSearchMatch]> {
    let logger = database.logger
    return try await database.reading(nil, consistency, "finding accounts") { client in
      try await ConsoleStatements.accounts(
        matching: query, environments: environments, on: client, logger: logger
      ).map { AccountSearchMatch(token: $0.token, matched: $0.matched) }
    }
  }

  public func overview(since: Date, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<ConsoleOverview>
  {
    let logger = database.logger
    return try await database.reading(nil, consistency, "reading the overview") { client in
      try await ConsoleStatements.overview(since: since, on: client, logger: logger)
    }
  }

  public func accountList(
    _ filter: AccountListFilter, after key: AccountListKey?, limit: Int, countTotal: Bool,
    consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ListRead<AccountListRow>> {
    let logger = database.logger
    return try await database.reading(nil, consistency, "listing accounts") { client in
      try await ListStatements.accounts(
        filter, after: key, limit: limit, countTotal: countTotal, on: client, logger: logger)
    }
  }

  public func statusTransitions(
    _ filter: StatusTransitionFilter, after key: StatusTransitionKey?, limit: Int,
    countTotal: Bool, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ListRead<StatusTransitionRow>> {
    let logger = database.logger
    return try await database.reading(nil, consistency, "listing status transitions") { client in
      try await ListStatements.transitions(
        filter, after: key, limit: limit, countTotal: countTotal, on: client, logger: logger)
    }
  }

  public func newestEvents(limit: Int, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<[LogEntrySummary]>
  {
    let logger = database.logger
    return try await database.reading(nil, consistency, "reading the newest events") { client in
      try await LogStatements.newest(limit: limit, on: client, logger: logger)
    }
  }

  public func logCounts() async throws(EventStoreError) -> LogCounts {
    try await database.primary("counting the log") { client, logger in
      let counts = try await LogStatements.counts(on: client, logger: logger)
      return LogCounts(events: counts.events, streams: counts.streams, accounts: counts.accounts)
    }
  }

  public func notUnderstood(
    knownTypes: [String], knownBodies: [String], after key: NotUnderstoodKey?, limit: Int,
    countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<NotUnderstoodNotification> {
    try await database.primary("listing notifications not understood") { client, logger in
      try await NotUnderstoodStatements.list(
        knownTypes: knownTypes, knownBodies: knownBodies, after: key, limit: limit,
        countTotal: countTotal, on: client, logger: logger)
    }
  }

  public func notificationCount(in stream: String, type: String, since: Int64)
    async throws(EventStoreError) -> Int
  {
    try await database.primary("counting notifications") { client, logger in
      try await LogStatements.notificationCount(
        in: stream, type: type, since: since, on: client, logger: logger)
    }
  }

  public func extensionSummary(in stream: String, requestIdentifier: String)
    async throws(EventStoreError) -> (succeeded: Int64?, failed: Int64?)?
  {
    try await database.primary("reading an extension's summary") { client, logger in
      try await LogStatements.extensionSummary(
        in: stream, requestIdentifier: requestIdentifier, on: client, logger: logger)
    }
  }

  public func event(withKey key: String) async throws(EventStoreError)
    -> (streamId: String, streamVersion: Int64, recordedAt: Date)?
  {
    try await database.primary("finding an event by key") { client, logger in
      try await LogStatements.event(withKey: key, on: client, logger: logger)
    }
  }
}
