import Foundation
import StoreLedgerCore

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
    let views = self.views
    return try await calls.run {
      try await views.accounts(after: token, limit: limit, shard: .whole)
    }
  }

  /// Counts of events, streams and accounts (a full count: seconds on a large log).
  public func statistics() async throws(LedgerError) -> Statistics {
    let support = self.support
    let counts = try await calls.run { try await support.logCounts() }
    return Statistics(events: counts.events, streams: counts.streams, accounts: counts.accounts)
  }
}
