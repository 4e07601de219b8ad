import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

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
extension Ledger {
  /// Verifies a notification that names no app, or names its environment but no bundle
  /// (chain, signature, and whatever identity it does carry), and stores it as unrouted
  /// evidence.
  func ingestUnroutable(
    _ unverified: UnverifiedJWS<ResponseBodyV2DecodedPayload>, source: String,
    freshlyFetched: Bool
  ) async throws(LedgerError) -> Ingested {
    if let environment = unverified.claims.environment,
      !configuration.environments.contains(environment)
    {
      let configured = configuration.environments.map(\.rawValue).joined(separator: ", ")
      throw LedgerError(
        .verificationFailed,
        "the payload's environment (\(environment.rawValue)) is not one of the configured environments (\(configured))",
        verificationCode: VerificationError.Code.environmentMismatch.rawValue)
    }
    let verifier = freshlyFetched ? unroutableVerifiers.now : unroutableVerifiers.signedDate
    let verified: VerifiedNotification
    do {
      verified = try verifier.verifyUnroutable(unverified)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    let record = try mapped { try LedgerRecord.unrouted(verified, source: source) }
    var ingested = try await append(record, accounts: [])
    ingested.notificationType = verified.payload.notificationType?.rawValue
    ingested.unrouted = true
    ingested.understood = false
    if !ingested.wasDuplicate {
      storage.logger.notice(
        "stored a verified notification that names no app as unrouted evidence",
        metadata: [
          "notificationType": "\(verified.payload.notificationType?.rawValue ?? "none")",
          "bodies": "\(verified.payload.bodyObjects.joined(separator: ","))",
        ])
    }
    return ingested
  }

  /// The notifications stored that this release does not understand, newest first: unrouted
  /// evidence (with where a later release routed it), and notifications routed to this app
  /// whose type or body object this release does not know.
  public func notUnderstood(limit: Int = 100) async throws(LedgerError)
    -> [NotUnderstoodNotification]
  {
    guard limit > 0 else {
      throw LedgerError(.invalidRequest, "limit must be a positive number of notifications")
    }
    let (client, logger) = (storage.client, storage.logger)
    do {
      return try await storage.bounded {
        try await NotUnderstoodQueries.list(
          knownTypes: NotificationType.knownValues.map(\.rawValue),
          knownBodies: ResponseBodyV2DecodedPayload.knownBodyObjects, limit: limit,
          on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// What re-examining the unrouted evidence did.
  public struct Reexamination: Sendable, Hashable, Codable {
    /// Unrouted notifications looked at (those not routed before).
    public var examined: Int = 0
    /// Now routed to this app, in the stream their app and purchase name.
    public var routed: Int = 0
    /// Still naming no app this release can read.
    public var stillUnrouted: Int = 0
    /// Their app can be read now and is not this one (or they no longer verify): kept as
    /// evidence, nothing else stored.
    public var refused: Int = 0

    public init(examined: Int = 0, routed: Int = 0, stillUnrouted: Int = 0, refused: Int = 0) {
      self.examined = examined
      self.routed = routed
      self.stillUnrouted = stillUnrouted
      self.refused = refused
    }
  }

  /// Reads every unrouted notification again with this release's decoder and routes those
  /// whose app it can now read (verifying them again as any notification). Idempotent.
  public func reexamineUnrouted() async throws(LedgerError) -> Reexamination {
    let (client, logger) = (storage.client, storage.logger)
    let payloads: [String]
    do {
      payloads = try await storage.bounded {
        try await NotUnderstoodQueries.unroutedPayloads(on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
    var result = Reexamination()
    for payload in payloads {
      result.examined += 1
      do {
        let ingested = try await ingest(notification: payload, source: "reexamined")
        if ingested.unrouted { result.stillUnrouted += 1 } else { result.routed += 1 }
      } catch  where error.code == .verificationFailed || error.code == .invalidPayload {
        result.refused += 1
      }
    }
    if result.routed > 0 {
      logger.info("routed unrouted notifications", metadata: ["routed": "\(result.routed)"])
    }
    return result
  }
}
