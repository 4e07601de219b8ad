import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore
import Synchronization

/// `appTransactionId` as an identity: a purchase chain Apple signed without an account token
/// joins the one account that holds its app download. StoreLedger appends the link as the
/// backend would (an `AccountLinked` event, source `app-transaction-id`), so the answer explains
/// itself and the audit covers it. Only when exactly one account holds the appTransactionId,
/// and only chains no account holds yet: never two owners for one purchase.
struct IdentityJoiner: Sendable {
  /// App downloads already matched to their accounts by this process; nil: no joining.
  let identities: IdentityCache?
  let index: any AccountIndex
  let writer: AccountWriter
  /// The refund request streams a joined chain brings along.
  let links: AccountLinks
  let logger: Logger

  init(
    identities: IdentityCache?, index: any AccountIndex, writer: AccountWriter,
    links: AccountLinks, logger: Logger
  ) {
    self.identities = identities
    self.index = index
    self.writer = writer
    self.links = links
    self.logger = logger
  }
}

extension IdentityJoiner {
  static func sighting(_ transaction: JWSTransactionDecodedPayload?, forwarded: String? = nil)
    -> DownloadSighting?
  {
    guard let transaction, let id = transaction.appTransactionId, !id.isEmpty,
      let chain = transaction.originalTransactionId ?? transaction.transactionId,
      let environment = transaction.environment?.rawValue
    else { return nil }
    return DownloadSighting(
      environment: environment, appTransactionId: id, chain: chain,
      token: (transaction.appAccountToken ?? forwarded).map(AppAccountToken.normalized))
  }

  static func sighting(_ renewal: JWSRenewalInfoDecodedPayload?) -> DownloadSighting? {
    guard let renewal, let id = renewal.appTransactionId, !id.isEmpty,
      let chain = renewal.originalTransactionId, let environment = renewal.environment?.rawValue
    else { return nil }
    return DownloadSighting(
      environment: environment, appTransactionId: id, chain: chain,
      token: renewal.appAccountToken.map(AppAccountToken.normalized))
  }

  /// Notes the sighting and links what it lets link. A sighting with a token (nearly all of
  /// them) joins a batch: the ingest that finds no batch being written writes the queue, the
  /// others' sightings with it, while those ingests return; one without a token (a purchase to
  /// attach) is settled now. Runs after the ingest stored its event; a failure is
  /// logged and retried with the next sighting of the chain (a replay makes one), never turned
  /// into a failed ingest.
  func join(_ sighting: DownloadSighting?) async {
    guard let sighting, let identities = self.identities else { return }
    if identities.contains(sighting.key) { return }
    guard sighting.token == nil else {
      if identities.enqueue(sighting) { await writeIdentities(endingFlush: true) }
      return
    }
    do {
      // Read before the index: a sighting queued or being written now is seen here, one
      // written before this moment is in the index read next, so none falls between the two.
      let waiting = identities.pendingTokens(sighting.environment, sighting.appTransactionId)
      let seen = try await noted([sighting])
      let holders = Set(seen.compactMap(\.token)).union(waiting)
      if holders.count == 1, let holder = holders.first {
        try await joinChain(sighting.chain, to: holder, in: sighting.environment)
      }
      identities.insert(sighting.key)
    } catch {
      logger.warning(
        "an app download could not be matched to its account", metadata: ["code": "\(error.code)"])
    }
  }

  /// Waits until every sighting so far is written and what it lets link is linked (tests
  /// and shutdown call it).
  func flush() async {
    await writeIdentities(endingFlush: false)
    while identities?.isWriting == true { try? await Task.sleep(for: .milliseconds(5)) }
  }

  /// Writes the batched sightings (and links the purchases they let link) until none is left.
  private func writeIdentities(endingFlush: Bool) async {
    guard let identities = self.identities else { return }
    while let batch = identities.takeBatch(endingFlush: endingFlush) {
      do {
        // Before the index is read (see join): this batch and every other not yet written.
        let waiting = identities.waitingTokens()
        let stored = try await noted(batch)
        try await linkTokenless(stored, waiting: waiting)
        for sighting in batch { identities.insert(sighting.key) }
      } catch {
        logger.warning(
          "app downloads could not be matched to their accounts",
          metadata: ["code": "\(error.code)", "count": "\(batch.count)"])
      }
      identities.written(batch)
    }
  }

  /// For each download of the batch held by exactly one account (in the index or in a
  /// sighting not yet written, `waiting`): its purchases without a token join that account.
  private func linkTokenless(
    _ stored: [DownloadSighting],
    waiting: [String: Set<String>]
  ) async throws(LedgerError) {
    let downloads = Dictionary(grouping: stored) {
      IdentityCache.download($0.environment, $0.appTransactionId)
    }
    for (download, rows) in downloads {
      let holders = Set(rows.compactMap(\.token)).union(waiting[download] ?? [])
      guard holders.count == 1, let holder = holders.first else { continue }
      for row in rows where row.token == nil {
        try await joinChain(row.chain, to: holder, in: row.environment)
      }
    }
  }

  private func joinChain(_ chain: String, to token: String, in environment: String)
    async throws(LedgerError)
  {
    let stream = "sub:\(environment):\(chain)"
    let holders: [String]
    do {
      holders = try await index.accounts(holding: [stream])
    } catch {
      throw LedgerStorage.mapped(error)
    }
    guard holders.isEmpty else { return }
    let link = AccountLinked(
      appAccountToken: token, originalTransactionId: chain, linkedAt: Timestamp(Date()))
    _ = try await writer.decideAndAppend(
      .link(link), for: token, idempotencyKey: "\(token):\(chain)",
      alsoIndexing: [stream]
        + (try await links.refundRequestStreams(ofChain: chain)),
      source: "app-transaction-id")
  }
}

extension IdentityJoiner {
  /// The accounts holding app download `appTransactionId` of the environment `stream` names
  /// (`consent:<env>:<appTransactionId>`), after the sightings queued in this process are
  /// written.
  func accounts(holdingDownload appTransactionId: String, in stream: String)
    async throws(LedgerError) -> [String]
  {
    await flush()
    let environment = stream.split(separator: ":").dropFirst().first.map(String.init) ?? ""
    do {
      return try await index.accounts(
        holdingDownload: appTransactionId, environment: environment)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  private func noted(_ sightings: [DownloadSighting]) async throws(LedgerError)
    -> [DownloadSighting]
  {
    do {
      return try await index.note(sightings)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }
}

extension DownloadSighting {
  /// The sighting as the cache of this process's written sightings knows it.
  var key: String { "\(environment)|\(appTransactionId)|\(chain)|\(token ?? "")" }
}
