import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension SupportQueries {
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
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      return try await ledger.storage.bounded {
        try await AccountViews.accounts(after: token, limit: limit, on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Counts of events, streams and accounts (a full count: seconds on a large log).
  public func statistics() async throws(LedgerError) -> Statistics {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      let counts = try await ledger.storage.bounded {
        try await LogQueries.counts(on: client, logger: logger)
      }
      return Statistics(events: counts.events, streams: counts.streams, accounts: counts.accounts)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }
}
