import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore

/// Apple's signed data into the log: reads what a payload claims, verifies it with the
/// verifier of its environment, maps it to the ledger's record and appends it indexed under
/// the accounts it names (with the refund request a notification opens, in the same
/// transaction). Seat releases go to the seat stream that made the claims; a notification
/// naming no app is kept as unrouted evidence; a fetched repeat stores nothing.
struct SignedDataIngest: Sendable {
  let verifiers: LedgerVerifiers
  let writer: AccountWriter
  /// Where `UNCLAIM_SEATS` goes.
  let seats: SeatLedger
  /// Joins purchases to accounts by their app download; holds the refund requests.
  let joiner: IdentityJoiner
  /// The refund request a notification opens.
  let requests: ConsumptionRequests
  let observations: RepeatedObservations
  /// The environments the app accepts.
  let environments: [AppStoreEnvironment]
  let logger: Logger

  /// An App Store Server Notification V2 `signedPayload`; `source` is kept in the event's
  /// metadata (`webhook`, `recovery`, …). Certificates are judged at the payload's
  /// signedDate (a retried delivery may be days old), or at the current time when
  /// `freshlyFetched` (data the caller fetched from Apple just now). `body`: the HTTP body as
  /// Apple sent it, when it was not the plain `{"signedPayload":"…"}` (kept in the metadata,
  /// so a relay sends it on unchanged).
  func ingest(
    notification signedPayload: String, source: String = "webhook", freshlyFetched: Bool = false,
    body: String? = nil
  ) async throws(LedgerError) -> IngestReceipt {
    // Read once: what it claims chooses the verifier, which checks it without reading it again.
    let unverified = try await verifiers.notificationClaims(signedPayload)
    if let released = unverified.claims.unclaimInfo?.unclaimSeatIds, !released.isEmpty,
      let stream = try await seats.stream(holding: released)
    {
      return try await seats.ingestUnclaim(
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
      try LedgerRecord.notification(verified, source: source, body: body)
    }
    var tokens = [
      verified.transaction?.payload.appAccountToken,
      verified.renewalInfo?.payload.appAccountToken,
    ]
    if let download = LedgerRecord.consentDownload(verified) {
      // A withdrawn consent joins every account holding the download.
      tokens += try await joiner.accounts(
        holdingDownload: download, in: record.streamId)
    }
    var ingested = try await writer.append(
      record, accounts: tokens.compactMap { $0 },
      with: try await requests.opening(
        verified, in: record.streamId, for: tokens.compactMap { $0 }))
    ingested.notificationType = verified.payload.notificationType?.rawValue
    ingested.understood = verified.payload.isUnderstood
    await joiner.join(IdentityJoiner.sighting(verified.transaction?.payload))
    return ingested
  }

  /// A signed transaction the app forwarded after a purchase (or the replay fetched), with
  /// the account it was made for. One that says what the log's newest snapshot of the
  /// transaction says (but for its signedDate), with no account named, is a repeat: nothing is
  /// stored and the stored event is returned as a duplicate.
  func ingest(
    signedTransaction: String, appAccountToken: String? = nil, source: String = "app",
    freshlyFetched: Bool = false
  ) async throws(LedgerError) -> IngestReceipt {
    let appAccountToken = try appAccountToken.map { token throws(LedgerError) in
      try AppAccountToken.checked(token)
    }
    let claims = try await verifiers.expect(.transaction, in: signedTransaction)
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
      if let known = try await observations.stored(
        in: record.streamId, { $0.repeated(payload) })
      {
        await joiner.join(sighting)
        return known
      }
    }
    let ingested = try await writer.append(
      record, accounts: [verified.payload.appAccountToken, appAccountToken].compactMap { $0 })
    await joiner.join(sighting)
    return ingested
  }

  /// A signed renewal info (from Get All Subscription Statuses); a repeat of the newest one
  /// stored (but for its signedDate) stores nothing.
  func ingest(signedRenewalInfo: String, source: String, freshlyFetched: Bool = false)
    async throws(LedgerError) -> IngestReceipt
  {
    let claims = try await verifiers.expect(.renewalInfo, in: signedRenewalInfo)
    let verified = try await verifiers.verify(claims, online: freshlyFetched) {
      verifier throws(VerificationError) in
      try await verifier.verifyRenewalInfo(signedRenewalInfo)
    }
    let record = try LedgerRecord.mapped { try LedgerRecord.renewalInfo(verified, source: source) }
    let payload = verified.payload
    if let known = try await observations.stored(
      in: record.streamId, { $0.repeated(payload) })
    {
      await joiner.join(IdentityJoiner.sighting(payload))
      return known
    }
    let ingested = try await writer.append(
      record, accounts: [verified.payload.appAccountToken].compactMap { $0 })
    await joiner.join(IdentityJoiner.sighting(payload))
    return ingested
  }
}
