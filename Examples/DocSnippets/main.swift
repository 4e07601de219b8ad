// The Swift the documentation shows, compiled with every build: each region between
// `snippet:begin` and `snippet:end` is a block of an article, a README or a docs/ page, as
// printed there (DocSnippetTests holds them equal). The program itself does nothing.
import AppStoreServerAPI
import AppStoreVerification
import Crypto
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore

/// The DocC catalog of StoreLedger: its overview.
func overview(
  client postgresClient: PostgresClient, configuration: LedgerConfiguration,
  signedPayload: String, accountToken: String, logger: Logger
) async throws -> [EntitlementView] {
  // snippet:begin
  let ledger = try Ledger(client: postgresClient, configuration: configuration, logger: logger)
  _ = try await ledger.ingest(notification: signedPayload)
  let entitlements = try await ledger.entitlements(for: accountToken)
  // snippet:end
  return entitlements
}

/// The DocC article VerifyingAppStoreData.
func verifying(_ signedPayload: String) async throws -> VerifiedNotification {
  // snippet:begin
  let verifier = try SignedDataVerifier(
    configuration: VerifierConfiguration(
      trustedRoots: .apple, bundleId: "com.example.app", appAppleId: 1234567890,
      environment: .production))
  let notification = try await verifier.verifyNotification(signedPayload)
  // snippet:end
  return notification
}

/// docs/verification.md: what a verified notification holds.
func verifyingInFull(signedPayload: String) async throws {
  // snippet:begin
  let verifier = try SignedDataVerifier(
    configuration: VerifierConfiguration(
      bundleId: "com.example.app", appAppleId: 1234567890, environment: .production))

  let notification = try await verifier.verifyNotification(signedPayload)
  let type = notification.payload.notificationType  // .didRenew
  let expires = notification.transaction?.payload.expiresDate  // nested JWS, verified on its own
  let signedBytes = notification.notification.payloadJSON  // exact bytes, unknown fields included
  let jws = notification.notification.compactJWS  // keep it: the audit re-verifies it later
  // snippet:end
  _ = (type, expires, signedBytes, jws)
}

/// The DocC article ActingOnApple.
func answering(
  ledger: Ledger, apple: AppStoreServerAPIClient, policy: ConsumptionPolicy, requestId: String,
  logger: Logger
) async throws -> ConsumptionRequestReport {
  // snippet:begin
  let worker = ConsumptionWorker(
    ledger: ledger, client: apple,
    configuration: ConsumptionWorkerConfiguration(policy: policy), logger: logger)
  try await worker.run()  // or runOnce() from your own scheduler
  let report = try await worker.answer(requestId, override: .init(refundPreference: .decline))
  // snippet:end
  return report
}

/// The DocC article GroupSubscriptionsAndSeats.
func seats(
  ledger: Ledger, apiClient: AppStoreServerAPIClient, originalTransactionId: String,
  memberToken: String, memberDownload: String
) async throws {
  // snippet:begin
  let seats = SeatLedger(ledger: ledger, apple: apiClient)
  let claimed = try await seats.claim(
    originalTransactionId, for: memberToken, appTransactionId: memberDownload)
  if let seatClaimId = claimed.claim.seatClaimId {
    _ = try await seats.release(originalTransactionId, seatClaimId: seatClaimId)
  }
  // snippet:end
}

/// The DocC article TellingTheBackend, with the backend's own parts.
struct Backend {
  func loadCheckpoint() async throws -> Int64 { 0 }
  func saveCheckpoint(_ position: Int64) async throws {}
  func removeAccess(_ account: String, _ entitlement: String) async throws {}
  func emailAboutPayment(_ account: String) async throws {}

  func follow(_ ledger: Ledger) async throws {
    // snippet:begin
    var position = try await loadCheckpoint()
    for try await change in ChangeFeedReader(ledger: ledger).sequence(after: position) {
      switch change.change.kind {
      case .entitlementRevoked:
        try await removeAccess(change.appAccountToken, change.change.subject)
      case .billingProblemStarted: try await emailAboutPayment(change.appAccountToken)
      default: break
      }
      position = change.position
      try await saveCheckpoint(position)
    }
    // snippet:end
  }
}

/// The change feed's page: how a receiver checks a webhook's signature.
// snippet:begin
func isGenuine(body: [UInt8], header: String, secret: String) -> Bool {
  var fields: [String: String] = [:]
  for field in header.split(separator: ",") {
    let pair = field.split(separator: "=", maxSplits: 1)
    if pair.count == 2, fields[String(pair[0])] == nil { fields[String(pair[0])] = String(pair[1]) }
  }
  guard let t = fields["t"], let sent = Double(t), let v1 = fields["v1"],
    abs(Date().timeIntervalSince1970 - sent) < 300
  else { return false }
  let mac = HMAC<SHA256>.authenticationCode(
    for: Array("\(t).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
  return mac.map { String(format: "%02x", $0) }.joined() == v1
}
// snippet:end

/// The DocC article RevenueAndMetrics and docs/reference/revenue.md.
func revenue(ledger: Ledger) async throws -> MetricsReport {
  // snippet:begin
  let metrics = LedgerMetrics(ledger: ledger)
  let query = try MetricsQuery(
    from: Timestamp(milliseconds: 1_767_225_600_000),  // 2026-01-01
    to: Timestamp(milliseconds: 1_798_761_600_000),  // 2027-01-01
    granularity: .month, grouping: [.product], now: Timestamp(Date()))
  let report = try await metrics.report(query)
  // snippet:end
  return report
}
