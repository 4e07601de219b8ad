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
  /// Shares commits between concurrent ingests; nil when the configuration turns it off.
  let committer: GroupCommitter?
  /// Folds accounts into their stored views and derives their changes.
  let views: AccountViewWriter
  /// App downloads already matched to their accounts by this process.
  let identities: IdentityCache?

  /// A ledger on `storage` (``LedgerStorage``); the PostgreSQL one is
  /// ``init(client:configuration:logger:wakeUp:replicas:)``.
  package init(storage: LedgerStorage, configuration: LedgerConfiguration) throws {
    self.storage = storage
    self.configuration = configuration
    self.committer =
      configuration.groupCommit
      ? GroupCommitter(
        log: storage.log, maximumBatch: configuration.maximumCommitBatch,
        timeout: configuration.databaseTimeout) : nil
    self.views = AccountViewWriter(
      views: storage.views, configuration: configuration,
      projection: configuration.projectionFingerprint,
      viewCache: configuration.viewCacheCapacity > 0
        ? AccountViewCache(capacity: configuration.viewCacheCapacity) : nil,
      changesAppended: WakeUpSignal())
    self.identities = IdentityCache(capacity: 100_000)
    self.verifiers = try LedgerVerifiers(configuration)
  }

  /// What an ingest stored (or had stored before).
  public struct Ingested: Sendable, Hashable {
    public var streamId: String
    public var idempotencyKey: String
    public var streamVersion: Int64
    /// The event was already stored: nothing new was written.
    public var wasDuplicate: Bool
    /// For notifications: Apple's `notificationType` (raw, also when unknown to us).
    public var notificationType: String? = nil
    /// A verified notification whose app could not be read, kept as unrouted evidence: it
    /// grants and revokes nothing (``SupportQueries/notUnderstood(limit:)`` lists it).
    public var unrouted: Bool = false
    /// For notifications: this release knows its type and every body object it carries.
    public var understood: Bool = true
  }

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
  ) async throws(LedgerError) -> Ingested {
    // Read once: what it claims chooses the verifier, which checks it without reading it again.
    let unverified = try LedgerVerifiers.notificationClaims(signedPayload)
    if let released = unverified.claims.unclaimInfo?.unclaimSeatIds, !released.isEmpty,
      let stream = try await SeatLedger(ledger: self, apple: nil).stream(holding: released)
    {
      return try await SeatLedger(ledger: self, apple: nil).ingestUnclaim(
        unverified, into: stream, source: source, freshlyFetched: freshlyFetched, body: body)
    }
    guard unverified.claims.environment != nil, unverified.claims.bundleId != nil else {
      // No body names the app: never refused for being new (Apple would retry, then give up).
      return try await ingestUnroutable(
        unverified, source: source, freshlyFetched: freshlyFetched, body: body)
    }
    let claims = SignedDataKind.Claims(
      kind: .notification, environment: unverified.claims.environment)
    let verified = try await verifiers.verify(claims, online: freshlyFetched) {
      verifier throws(VerificationError) in
      try await verifier.verifyNotification(unverified)
    }
    let record = try LedgerRecord.mapped {
      try LedgerRecord.notification(verified, source: source).keeping(body: body)
    }
    var tokens = [
      verified.transaction?.payload.appAccountToken,
      verified.renewalInfo?.payload.appAccountToken,
    ]
    if let download = LedgerRecord.consentDownload(verified) {
      // A withdrawn consent joins every account holding the download.
      tokens += try await IdentityJoiner(ledger: self).accounts(
        holdingDownload: download, in: record.streamId)
    }
    var ingested = try await append(
      record, accounts: tokens.compactMap { $0 },
      with: try await ConsumptionRequests(ledger: self).opening(
        verified, in: record.streamId, for: tokens.compactMap { $0 }))
    ingested.notificationType = verified.payload.notificationType?.rawValue
    ingested.understood = verified.payload.isUnderstood
    await IdentityJoiner(ledger: self).join(IdentityJoiner.sighting(verified.transaction?.payload))
    return ingested
  }

  /// A signed transaction the app forwarded after a purchase (or the replay fetched), with
  /// the account it was made for. One that says what the log's newest snapshot of the
  /// transaction says (but for its signedDate), with no account named, is a repeat: nothing is
  /// stored and the stored event is returned as a duplicate.
  public func ingest(
    signedTransaction: String, appAccountToken: String? = nil, source: String = "app",
    freshlyFetched: Bool = false
  ) async throws(LedgerError) -> Ingested {
    let appAccountToken = try appAccountToken.map { token throws(LedgerError) in
      try Self.canonical(token)
    }
    let claims = try LedgerVerifiers.expect(.transaction, in: signedTransaction)
    let verified = try await verifiers.verify(claims, online: freshlyFetched) {
      verifier throws(VerificationError) in
      try await verifier.verifyTransaction(signedTransaction)
    }
    let record = try LedgerRecord.mapped {
      try LedgerRecord.transaction(verified, appAccountToken: appAccountToken, source: source)
    }
    let sighting = IdentityJoiner.sighting(verified.payload, forwarded: appAccountToken)
    if appAccountToken == nil {
      let payload = verified.payload
      if let known = try await RepeatedObservations(log: storage.log, calls: storage.calls).stored(
        in: record.streamId, { $0.repeated(payload) })
      {
        await IdentityJoiner(ledger: self).join(sighting)
        return known
      }
    }
    let ingested = try await append(
      record, accounts: [verified.payload.appAccountToken, appAccountToken].compactMap { $0 })
    await IdentityJoiner(ledger: self).join(sighting)
    return ingested
  }

  /// A signed renewal info (from Get All Subscription Statuses); a repeat of the newest one
  /// stored (but for its signedDate) stores nothing.
  public func ingest(signedRenewalInfo: String, source: String, freshlyFetched: Bool = false)
    async throws(LedgerError) -> Ingested
  {
    let claims = try LedgerVerifiers.expect(.renewalInfo, in: signedRenewalInfo)
    let verified = try await verifiers.verify(claims, online: freshlyFetched) {
      verifier throws(VerificationError) in
      try await verifier.verifyRenewalInfo(signedRenewalInfo)
    }
    let record = try LedgerRecord.mapped { try LedgerRecord.renewalInfo(verified, source: source) }
    let payload = verified.payload
    if let known = try await RepeatedObservations(log: storage.log, calls: storage.calls).stored(
      in: record.streamId, { $0.repeated(payload) })
    {
      await IdentityJoiner(ledger: self).join(IdentityJoiner.sighting(payload))
      return known
    }
    let ingested = try await append(
      record, accounts: [verified.payload.appAccountToken].compactMap { $0 })
    await IdentityJoiner(ledger: self).join(IdentityJoiner.sighting(payload))
    return ingested
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
  ) async throws(LedgerError) -> Ingested {
    guard !appAccountToken.isEmpty, !originalTransactionId.isEmpty else {
      throw LedgerError(.invalidRequest, "a link needs an account token and a transaction id")
    }
    let appAccountToken = try Self.canonical(appAccountToken)
    let holder = try await holder(ofChain: originalTransactionId)
    let moving = holder.map { $0 != appAccountToken } ?? false
    // A purchase of an erased account is re-linked, as a transfer, without asking for one.
    var fromErased = false
    if moving, !transfer, let holder {
      fromErased = try await isRetired(holder, holding: originalTransactionId)
    }
    if moving, !transfer, !fromErased {
      throw LedgerError(
        .purchaseHeldByAnotherAccount,
        "this purchase belongs to another account; to move it to this one, link it again with "
          + "\"transfer\": true (its entitlements then leave the other account)")
    }
    if let apple {
      try await AppleActions.setAtApple(appAccountToken, originalTransactionId, apple)
    }
    let chainStreams =
      configuration.purchaseStreams(ofChain: originalTransactionId)
      + (try await ConsumptionRequests(ledger: self).streams(ofChain: originalTransactionId))
    guard moving, let holder else {
      let link = AccountLinked(
        appAccountToken: appAccountToken, originalTransactionId: originalTransactionId,
        linkedAt: Timestamp(time), setAtApple: apple == nil ? nil : Timestamp(time))
      return try await decideAndAppend(
        .link(link), for: appAccountToken,
        idempotencyKey: "\(appAccountToken):\(originalTransactionId)",
        alsoIndexing: chainStreams)
    }
    // The transfer lives in the chain's own stream, which both accounts hold: each one's
    // history and explanation show it, and neither holds the other's account stream.
    let moved = AccountLinked(
      appAccountToken: appAccountToken, originalTransactionId: originalTransactionId,
      linkedAt: Timestamp(time), setAtApple: apple == nil ? nil : Timestamp(time),
      transferredFrom: holder)
    return try await decideAndAppend(
      .link(moved), for: appAccountToken,
      idempotencyKey:
        "transfer:\(originalTransactionId):\(holder):\(appAccountToken):\(Timestamp(time).milliseconds)",
      alsoIndexing: chainStreams, in: Self.transferStream(originalTransactionId),
      alsoFor: [holder])
  }

  static func transferStream(_ originalTransactionId: String) -> String {
    "transfer:\(originalTransactionId)"
  }

  /// The account holding the purchase chain now: as its events and transfers decide, else
  /// (a purchase linked before transfers were recorded in the chain's own stream) an account
  /// that holds the chain's streams.
  func holder(ofChain originalTransactionId: String) async throws(LedgerError) -> String? {
    let streams =
      configuration.purchaseStreams(ofChain: originalTransactionId) + [
        Self.transferStream(originalTransactionId)
      ]
    let log = storage.log
    let recorded: [RecordedEvent]
    do {
      recorded = try await storage.bounded { try await log.readStreams(streams) }
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let view: LedgerView
    do {
      view = LedgerView(
        LedgerState.fold(
          try recorded.filter { EventCodec.holdsLedgerEvent($0.eventType) && $0.erasedBy == nil }
            .map(EventCodec.event)),
        catalog: configuration.catalog, options: configuration.options)
    } catch {
      throw LedgerError(.invalidPayload, "a stored event of the purchase could not be read")
    }
    let records = view.state.transactions.values.filter {
      $0.facts.originalTransactionId == originalTransactionId
    }
    if let token = view.accountToken(ofChain: originalTransactionId, records: Array(records)) {
      return token
    }
    do {
      return try await storage.index.accounts(holding: streams).first
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Whether `token`, the holder of the chain by Apple's signature, names an account an
  /// erasure removed that does not hold the chain since (its later data quarantined): such a
  /// purchase moves freely.
  func isRetired(_ token: String, holding originalTransactionId: String)
    async throws(LedgerError) -> Bool
  {
    let (erasure, index) = (storage.erasure, storage.index)
    let streams = configuration.purchaseStreams(ofChain: originalTransactionId)
    return try await storage.run {
      guard try await erasure.erasure(ofAccount: token) != nil else { return false }
      return !(try await index.accounts(holding: streams).contains(token))
    }
  }

  /// Spends `quantity` units of a consumable; refused with `insufficient_balance` when the
  /// account's balance would go below zero. Idempotent by `idempotencyKey`, which is the
  /// account's own: the same key on another account is another debit, and the same key on
  /// this account for another product or quantity is refused (`idempotency_key_reused`).
  public func debit(
    appAccountToken: String, productId: String, quantity: Int64, idempotencyKey: String,
    at time: Date = Date()
  ) async throws(LedgerError) -> Ingested {
    guard !appAccountToken.isEmpty, !productId.isEmpty, quantity > 0, !idempotencyKey.isEmpty
    else {
      throw LedgerError(
        .invalidRequest, "a debit needs an account, a product, a positive quantity and a key")
    }
    let appAccountToken = try Self.canonical(appAccountToken)
    let debit = ConsumableDebited(
      id: idempotencyKey, appAccountToken: appAccountToken, productId: productId,
      quantity: quantity, debitedAt: Timestamp(time))
    return try await decideAndAppend(
      .debit(debit), for: appAccountToken,
      idempotencyKey: "debit:\(appAccountToken):\(idempotencyKey)")
  }
}
