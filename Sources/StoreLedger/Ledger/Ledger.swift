import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres

/// Verify → append → index, in one PostgreSQL transaction, and the account queries.
///
/// Every accepted input becomes one event of the log (idempotent: sending it again returns
/// the stored position). The account index (`storeledger.account_streams`) is written, and the
/// account's view marked out of date, in the same statement, so a query right after an ingest
/// sees it. Queries answer from the per-account read model (`storeledger.account_views`,
/// kept by ``AccountProjector``) when its view is current, else fold the account's streams
/// from the log: the answers never lag the log.
public struct Ledger: Sendable {
  /// The log, the views and the replicas, as every part of the ledger reaches them.
  package let storage: LedgerStorage
  public let configuration: LedgerConfiguration
  /// The app's verifiers, by environment and by when certificates are judged.
  let verifiers: LedgerVerifiers
  /// Appends for accounts, and tells this process's reads of each write.
  let writer: AccountWriter
  /// Accounts' states folded from the log.
  let reader: AccountReader
  /// Verify → append → index of Apple's signed data.
  let ingestion: SignedDataIngest
  /// Who holds which purchase, and the backend's links and transfers.
  let links: AccountLinks
  /// The account API's summaries, from the cache, the stored views or the log.
  let summaries: AccountSummaries
  /// Folds accounts into their stored views and derives their changes.
  let views: AccountViewWriter
  /// App downloads already matched to their accounts by this process.
  let identities: IdentityCache?

  /// A ledger on `storage` (``LedgerStorage``); the PostgreSQL one is
  /// ``init(client:configuration:logger:wakeUp:replicas:)``.
  package init(storage: LedgerStorage, configuration: LedgerConfiguration) throws {
    self.storage = storage
    self.configuration = configuration
    let viewCache =
      configuration.viewCacheCapacity > 0
      ? AccountViewCache(capacity: configuration.viewCacheCapacity) : nil
    self.views = AccountViewWriter(
      views: storage.views, configuration: configuration,
      projection: configuration.projectionFingerprint, viewCache: viewCache,
      changesAppended: WakeUpSignal(),
      historyCache: StatusHistoryCache(capacity: StatusHistoryCache.accounts))
    self.writer = AccountWriter(
      log: storage.log, calls: storage.calls,
      committer: configuration.groupCommit
        ? GroupCommitter(
          log: storage.log, maximumBatch: configuration.maximumCommitBatch,
          timeout: configuration.databaseTimeout) : nil,
      written: WrittenAccounts(replicas: storage.replicas, viewCache: viewCache),
      catalog: configuration.catalog, options: configuration.options)
    self.reader = AccountReader(
      accounts: storage.accounts, log: storage.log, calls: storage.calls,
      catalog: configuration.catalog, options: configuration.options)
    self.identities = IdentityCache(capacity: 100_000)
    self.verifiers = try LedgerVerifiers(configuration)
    self.summaries = AccountSummaries(
      reader: reader, viewCache: viewCache, projection: views.projection)
    let requests = ConsumptionRequests(
      log: storage.log, index: storage.index, refundRequests: storage.refundRequests,
      calls: storage.calls, reader: reader,
      consents: RefundConsents(log: storage.log, calls: storage.calls))
    self.links = AccountLinks(
      reader: reader, writer: writer, index: storage.index, erasure: storage.erasure,
      calls: storage.calls, configuration: configuration)
    self.ingestion = SignedDataIngest(
      verifiers: verifiers, writer: writer,
      seats: SeatLedger(
        writer: writer, verifiers: verifiers, index: storage.index, log: storage.log,
        calls: storage.calls, configuration: configuration, apple: nil),
      joiner: IdentityJoiner(
        identities: identities, index: storage.index, writer: writer, links: links,
        logger: storage.logger),
      requests: requests,
      observations: RepeatedObservations(log: storage.log, calls: storage.calls),
      environments: configuration.environments, logger: storage.logger)
  }

  /// What an ingest stored (or had stored before).
  public typealias Ingested = IngestReceipt

  // MARK: Commands

  /// An App Store Server Notification V2 `signedPayload`; `source` is kept in the event's
  /// metadata (`webhook`, `recovery`, …). Certificates are judged at the payload's
  /// signedDate (a retried delivery may be days old), or at the current time when
  /// `freshlyFetched` (data the caller fetched from Apple just now). `body`: the HTTP body as
  /// Apple sent it, when it was not the plain `{"signedPayload":"…"}` (kept in the metadata,
  /// so a relay sends it on unchanged).
  public func ingest(
    notification signedPayload: String, source: String = "webhook", freshlyFetched: Bool = false,
    body: String? = nil
  ) async throws(LedgerError) -> IngestReceipt {
    try await ingestion.ingest(
      notification: signedPayload, source: source, freshlyFetched: freshlyFetched, body: body)
  }

  /// A signed transaction the app forwarded after a purchase (or the replay fetched), with
  /// the account it was made for. One that says what the log's newest snapshot of the
  /// transaction says (but for its signedDate), with no account named, is a repeat: nothing is
  /// stored and the stored event is returned as a duplicate.
  public func ingest(
    signedTransaction: String, appAccountToken: String? = nil, source: String = "app",
    freshlyFetched: Bool = false
  ) async throws(LedgerError) -> IngestReceipt {
    try await ingestion.ingest(
      signedTransaction: signedTransaction, appAccountToken: appAccountToken, source: source,
      freshlyFetched: freshlyFetched)
  }

  /// A signed renewal info (from Get All Subscription Statuses); a repeat of the newest one
  /// stored (but for its signedDate) stores nothing.
  public func ingest(signedRenewalInfo: String, source: String, freshlyFetched: Bool = false)
    async throws(LedgerError) -> IngestReceipt
  {
    try await ingestion.ingest(
      signedRenewalInfo: signedRenewalInfo, source: source, freshlyFetched: freshlyFetched)
  }

  /// The backend says `appAccountToken` owns the purchase chain `originalTransactionId`.
  ///
  /// A purchase has one owner. Linking a purchase another account holds (Apple signed that
  /// account's token into it, or it was linked or transferred there) is refused with
  /// `purchase_held_by_another_account`, naming nothing of that account, unless `transfer`
  /// is true: a transfer moves the purchase — its entitlements and balances, its events and
  /// the token at Apple — in one event that both accounts hold, explain and are told of.
  /// With `apple`, the token is first set at Apple (Set App Account Token), so later
  /// transactions and notifications carry it; Apple's refusal is thrown (`apple_refused`, with
  /// Apple's error code) and nothing is stored. A refused link never calls Apple.
  public func link(
    appAccountToken: String, originalTransactionId: String, at time: Date = Date(),
    apple: AppStoreServerAPIClient? = nil, transfer: Bool = false
  ) async throws(LedgerError) -> IngestReceipt {
    try await links.link(
      appAccountToken: appAccountToken, originalTransactionId: originalTransactionId, at: time,
      apple: apple, transfer: transfer)
  }

  /// Spends `quantity` units of a consumable; refused with `insufficient_balance` when the
  /// account's balance would go below zero. Idempotent by `idempotencyKey`, which is the
  /// account's own: the same key on another account is another debit, and the same key on
  /// this account for another product or quantity is refused (`idempotency_key_reused`).
  public func debit(
    appAccountToken: String, productId: String, quantity: Int64, idempotencyKey: String,
    at time: Date = Date()
  ) async throws(LedgerError) -> IngestReceipt {
    guard !appAccountToken.isEmpty, !productId.isEmpty, quantity > 0, !idempotencyKey.isEmpty
    else {
      throw LedgerError(
        .invalidRequest, "a debit needs an account, a product, a positive quantity and a key")
    }
    let appAccountToken = try AppAccountToken.checked(appAccountToken)
    let debit = ConsumableDebited(
      id: idempotencyKey, appAccountToken: appAccountToken, productId: productId,
      quantity: quantity, debitedAt: Timestamp(time))
    return try await writer.decideAndAppend(
      .debit(debit), for: appAccountToken,
      idempotencyKey: "debit:\(appAccountToken):\(idempotencyKey)")
  }

  /// Waits until every sighting so far is written and what it lets link is linked (tests
  /// and shutdown call it).
  public func flushIdentities() async {
    await ingestion.joiner.flush()
  }
}
