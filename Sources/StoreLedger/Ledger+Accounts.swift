import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// How much the log holds.
  public struct Statistics: Sendable, Hashable, Codable {
    public var events: Int
    public var streams: Int
    public var accounts: Int
  }

  /// Accounts the log knows (an append named them), in token order after `token`.
  public func accountTokens(after token: String = "", limit: Int = 1000)
    async throws(LedgerError) -> [String]
  {
    let (client, logger) = (self.client, self.logger)
    do {
      return try await withDatabase {
        try await AccountViews.accounts(after: token, limit: limit, on: client, logger: logger)
      }
    } catch {
      throw Self.mapped(error)
    }
  }

  /// Counts of events, streams and accounts (a full count: seconds on a large log).
  public func statistics() async throws(LedgerError) -> Statistics {
    let (client, logger) = (self.client, self.logger)
    do {
      return try await withDatabase {
        try await client.query(
          """
          SELECT (SELECT count(*) FROM storeledger.events),
            (SELECT count(DISTINCT stream_id) FROM storeledger.events),
            (SELECT count(*) FROM storeledger.account_views)
          """, logger: logger
        ) { rows in
          var statistics = Statistics(events: 0, streams: 0, accounts: 0)
          for try await (events, streams, accounts) in rows.decode((Int, Int, Int).self) {
            statistics = Statistics(events: events, streams: streams, accounts: accounts)
          }
          return statistics
        }
      }
    } catch {
      throw Self.mapped(error)
    }
  }
}
