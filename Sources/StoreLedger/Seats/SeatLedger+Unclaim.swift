import AppStoreVerification
import Foundation
import StoreLedgerCore

/// `UNCLAIM_SEATS` (Notifications 2.23): the App Store released seat claims of a
/// developer-hosted group subscription. Apple's readable text promises only `unclaimSeatIds`
/// in its body, so the notification is routed by the claims themselves: to the seat stream
/// that recorded them (`seats:<env>:<originalTransactionId>`), whose accounts (the members and
/// the purchaser) see the release. One that names claims this ledger never made is kept as
/// unrouted evidence, as any notification naming no app.
extension SeatLedger {
  /// The seat stream holding any of `seatClaimIds`; nil when none does.
  func stream(holding seatClaimIds: [String]) async throws(LedgerError) -> String? {
    do {
      return try await index.seatStreams(holdingClaims: seatClaimIds).first
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  func ingestUnclaim(
    _ unverified: UnverifiedJWS<ResponseBodyV2DecodedPayload>, into stream: String,
    source: String, freshlyFetched: Bool, body: String?
  ) async throws(LedgerError) -> IngestReceipt {
    let environment = stream.split(separator: ":").dropFirst().first.map(String.init) ?? "unknown"
    let claims = unverified.claims
    let verified: VerifiedNotification
    if claims.environment != nil, claims.bundleId != nil {
      guard claims.environment?.rawValue == environment else {
        throw LedgerError(
          .verificationFailed,
          "the notification's environment is not the one its seat claims were made in",
          verificationCode: VerificationError.Code.environmentMismatch.rawValue)
      }
      verified = try await verifiers.verify(
        SignedDataKind.Claims(kind: .notification, environment: claims.environment),
        online: freshlyFetched
      ) { verifier throws(VerificationError) in
        try await verifier.verifyNotification(unverified)
      }
    } else {
      let verifier =
        freshlyFetched ? verifiers.unroutable.now : verifiers.unroutable.signedDate
      do {
        verified = try await verifier.verifyUnroutable(unverified)
      } catch {
        throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
      }
    }
    var record = try LedgerRecord.mapped {
      try LedgerRecord.notification(verified, source: source, body: body, stream: stream)
    }
    record.event.environment = environment
    var ingested = try await writer.append(record, accounts: [])
    ingested.notificationType = claims.notificationType?.rawValue
    ingested.understood = claims.isUnderstood
    return ingested
  }
}
