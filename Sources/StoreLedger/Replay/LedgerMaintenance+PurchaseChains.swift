import Foundation
import Logging
import StoreLedgerCore

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
      let token = try AppAccountToken.checked(token)
      streams = try await maintenance.streams(of: token)
    case .everyone:
      streams = try await maintenance.purchaseStreams()
    }
    return streams.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
  }
}
