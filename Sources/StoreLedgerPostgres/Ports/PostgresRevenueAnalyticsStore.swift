import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The revenue analytics live in `storeledger_analytics` (schema/0021).
public struct PostgresRevenueAnalyticsStore: RevenueAnalyticsStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func storeRevenue(_ chains: [ChainRevenue]) async throws(EventStoreError) {
    try await database.primary("storing revenue analytics") { client, logger in
      try await RevenueAnalyticsStatements.store(chains, on: client, logger: logger)
    }
  }

  public func clearRevenue() async throws(EventStoreError) {
    try await database.primary("clearing revenue analytics") { client, logger in
      try await RevenueAnalyticsStatements.clear(on: client, logger: logger)
    }
  }

  public func revenueChains(after position: FeedPosition, limit: Int)
    async throws(EventStoreError) -> [ChainRevenue]
  {
    try await database.primary("reading revenue analytics") { client, logger in
      try await RevenueAnalyticsStatements.chains(
        after: position, limit: limit, on: client, logger: logger)
    }
  }
}
