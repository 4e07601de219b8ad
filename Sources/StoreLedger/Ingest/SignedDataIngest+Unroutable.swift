import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore

/// Notifications this release does not understand: kept, never refused for being new.
///
/// A notification whose signature and chain verify is stored whatever its type or body. When
/// a body this release models (or an unknown body object) names the app, it is routed as
/// usual; when none does, it is stored as unrouted evidence in its own stream
/// (`unrouted:<notificationUUID>`, key `unrouted:<notificationUUID>`), indexed under no
/// account, so it grants and revokes nothing. A later release that can read its app routes
/// it (``reexamineUnrouted()``, run by `rebuild` and `replay`) under the key a routed
/// notification has (`asn2:<notificationUUID>`), so the evidence and the routed event sit
/// side by side and neither is rewritten.
extension SignedDataIngest {
  /// Verifies a notification that names no app, or names its environment but no bundle
  /// (chain, signature, and whatever identity it does carry), and stores it as unrouted
  /// evidence.
  func ingestUnroutable(
    _ unverified: UnverifiedJWS<ResponseBodyV2DecodedPayload>, source: String,
    freshlyFetched: Bool, body: String?
  ) async throws(LedgerError) -> IngestReceipt {
    if let environment = unverified.claims.environment,
      !environments.contains(environment)
    {
      let configured = environments.map(\.rawValue).joined(separator: ", ")
      throw LedgerError(
        .verificationFailed,
        "the payload's environment (\(environment.rawValue)) is not one of the configured environments (\(configured))",
        verificationCode: VerificationError.Code.environmentMismatch.rawValue)
    }
    let verifier = freshlyFetched ? verifiers.unroutable.now : verifiers.unroutable.signedDate
    let verified: VerifiedNotification
    do {
      verified = try await verifier.verifyUnroutable(unverified)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    let record = try LedgerRecord.mapped {
      try LedgerRecord.unrouted(verified, source: source, body: body)
    }
    var ingested = try await writer.append(record, accounts: [])
    ingested.notificationType = verified.payload.notificationType?.rawValue
    ingested.unrouted = true
    ingested.understood = false
    if !ingested.wasDuplicate {
      logger.notice(
        "stored a verified notification that names no app as unrouted evidence",
        metadata: [
          "notificationType": "\(verified.payload.notificationType?.rawValue ?? "none")",
          "bodies": "\(verified.payload.bodyObjects.joined(separator: ","))",
        ])
    }
    return ingested
  }
}
