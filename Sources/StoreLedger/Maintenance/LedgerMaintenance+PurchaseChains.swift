import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres

extension LedgerMaintenance {
  /// The `originalTransactionId`s of `customers` in `environment` (for explicit transaction
  /// ids, those ids).
  public func purchaseChains(
    _ customers: CustomerReplay.Customers, in environment: AppStoreEnvironment, logger: Logger
  ) async throws -> [String] {
    let prefix = "sub:\(environment.rawValue):"
    let streams: [String]
    switch customers {
    case .transactions(let ids): return ids
    case .account(let token):
      let token = try Ledger.canonical(token)
      streams = try await AccountEvents.streams(
        of: token, on: try ledger.storage.database().client, logger: logger)
    case .everyone:
      streams = try await LogQueries.purchaseStreams(
        on: try ledger.storage.database().client, logger: logger)
    }
    return streams.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
  }
}
