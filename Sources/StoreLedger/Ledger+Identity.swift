import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// `appTransactionId` as an identity: a purchase chain Apple signed without an account token
/// joins the one account that holds its app download. StoreLedger appends the link as the
/// backend would (an `AccountLinked` event, source `app-transaction-id`), so the answer explains
/// itself and the audit covers it. Only when exactly one account holds the appTransactionId,
/// and only chains no account holds yet: never two owners for one purchase.
extension Ledger {
  struct Sighting: Sendable {
    var environment: String
    var appTransactionId: String
    var chain: String
    var token: String?
  }

  static func sighting(_ transaction: JWSTransactionDecodedPayload?, forwarded: String? = nil)
    -> Sighting?
  {
    guard let transaction, let id = transaction.appTransactionId, !id.isEmpty,
      let chain = transaction.originalTransactionId ?? transaction.transactionId,
      let environment = transaction.environment?.rawValue
    else { return nil }
    return Sighting(
      environment: environment, appTransactionId: id, chain: chain,
      token: (transaction.appAccountToken ?? forwarded).map(AppAccountToken.normalized))
  }

  static func sighting(_ renewal: JWSRenewalInfoDecodedPayload?) -> Sighting? {
    guard let renewal, let id = renewal.appTransactionId, !id.isEmpty,
      let chain = renewal.originalTransactionId, let environment = renewal.environment?.rawValue
    else { return nil }
    return Sighting(
      environment: environment, appTransactionId: id, chain: chain,
      token: renewal.appAccountToken.map(AppAccountToken.normalized))
  }

  /// Notes the sighting and links what it lets link. Runs after the ingest stored its event;
  /// a failure here is logged and retried with the next sighting of the chain (a replay makes
  /// one), never turned into a failed ingest.
  func join(_ sighting: Sighting?) async {
    guard let sighting else { return }
    let key =
      "\(sighting.environment)|\(sighting.appTransactionId)|\(sighting.chain)|"
      + (sighting.token ?? "")
    if identities?.contains(key) == true { return }
    do {
      let (client, logger) = (self.client, self.logger)
      let seen = try await database {
        try await AppTransactionIndex.note(
          environment: sighting.environment, appTransactionId: sighting.appTransactionId,
          chain: sighting.chain, token: sighting.token, on: client, logger: logger)
      }
      let holders = Set(seen.compactMap(\.token))
      if holders.count == 1, let holder = holders.first {
        for (chain, token) in seen where token == nil {
          try await joinChain(chain, to: holder, in: sighting.environment)
        }
      }
      identities?.insert(key)
    } catch {
      logger.warning(
        "an app download could not be matched to its account",
        metadata: ["code": "\(error.code)"])
    }
  }

  private func joinChain(_ chain: String, to token: String, in environment: String)
    async throws(LedgerError)
  {
    let stream = "sub:\(environment):\(chain)"
    let (client, logger) = (self.client, self.logger)
    let holders = try await database {
      try await AppTransactionIndex.accounts(indexing: stream, on: client, logger: logger)
    }
    guard holders.isEmpty else { return }
    let link = AccountLinked(
      appAccountToken: token, originalTransactionId: chain, linkedAt: Timestamp(Date()))
    _ = try await decideAndAppend(
      .link(link), for: token, idempotencyKey: "\(token):\(chain)", alsoIndexing: [stream],
      source: "app-transaction-id")
  }
}

/// The sightings this process has handled, so that a customer's renewals cost no extra
/// statement after the first.
final class IdentityCache: Sendable {
  private let seen = Mutex<Set<String>>([])
  private let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  func contains(_ key: String) -> Bool { seen.withLock { $0.contains(key) } }

  func insert(_ key: String) {
    seen.withLock {
      if $0.count >= capacity { $0.removeAll(keepingCapacity: true) }
      $0.insert(key)
    }
  }
}
