import AppStoreVerification
import StoreLedgerCore

/// The configured app's verifiers: one per environment judging certificates at the payload's
/// signedDate (a retried delivery may be days old), the same judging them now (for data just
/// fetched from Apple), and the pair for notifications whose app cannot be read.
struct LedgerVerifiers: Sendable {
  let environments: [AppStoreEnvironment]
  let atSignedDate: [SignedDataVerifier]
  let now: [SignedDataVerifier]
  /// For notifications whose app cannot be read: chain and signature, at the payload's
  /// signedDate and at the current time (``SignedDataVerifier/verifyUnroutable(_:)``).
  let unroutable: (signedDate: SignedDataVerifier, now: SignedDataVerifier)

  init(_ configuration: LedgerConfiguration) throws(VerificationError) {
    func verifier(_ environment: AppStoreEnvironment?, at time: ValidationTime)
      throws(VerificationError) -> SignedDataVerifier
    {
      try SignedDataVerifier(
        configuration: VerifierConfiguration(
          trustedRoots: configuration.trustedRoots, bundleId: configuration.bundleId,
          appAppleId: configuration.appAppleId, environment: environment, validationTime: time))
    }
    environments = configuration.environments
    atSignedDate = try environments.map { environment throws(VerificationError) in
      try verifier(environment, at: .signedDate)
    }
    now = try environments.map { environment throws(VerificationError) in
      try verifier(environment, at: .now)
    }
    unroutable = (try verifier(nil, at: .signedDate), try verifier(nil, at: .now))
  }

  /// Verifies with the verifier of the environment the payload claims (judging certificates
  /// at the current time when `online`, else at the payload's signedDate); that verifier
  /// checks everything again, the claim included, so the claim only chooses. Sandbox data
  /// carries no App Apple ID; Production data must carry the configured one.
  func verify<Result>(
    _ claims: SignedDataKind.Claims, online: Bool = false,
    _ body: (SignedDataVerifier) async throws(VerificationError) -> Result
  ) async throws(LedgerError) -> Result {
    let candidates = online ? now : atSignedDate
    guard
      let verifier = candidates.first(where: { $0.configuration.environment == claims.environment })
    else {
      let configured = environments.map(\.rawValue).joined(separator: ", ")
      throw LedgerError(
        .verificationFailed,
        "the payload's environment (\(claims.environment?.rawValue ?? "none")) is not one of the configured environments (\(configured))",
        verificationCode: VerificationError.Code.environmentMismatch.rawValue)
    }
    do {
      return try await body(verifier)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
  }

  /// What the payload claims (read from the unverified payload only to choose a verifier or
  /// to refuse, never to trust). Data of another kind is refused, once its chain and signature
  /// show Apple signed it (400 `invalid_payload`); data Apple did not sign fails verification
  /// (401 `verification_failed`) whatever its payload looks like.
  func expect(_ kind: SignedDataKind, in jws: String) async throws(LedgerError)
    -> SignedDataKind.Claims
  {
    let found: SignedDataKind.Claims
    do {
      found = try SignedDataKind.claims(of: jws)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    guard found.kind == kind else {
      try await checkSignedByApple(jws)
      throw LedgerError(
        .invalidPayload, "this is signed \(found.kind.rawValue) data, not a \(kind.rawValue)")
    }
    return found
  }

  /// A notification's payload read, not yet verified; data of another kind is refused as
  /// ``expect(_:in:)`` refuses it.
  func notificationClaims(_ jws: String) async throws(LedgerError)
    -> UnverifiedJWS<ResponseBodyV2DecodedPayload>
  {
    let unverified: UnverifiedJWS<ResponseBodyV2DecodedPayload>
    do {
      unverified = try UnverifiedJWS(jws)
    } catch {
      _ = try await expect(.notification, in: jws)
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    guard unverified.claims.notificationType != nil else {
      _ = try await expect(.notification, in: jws)
      try await checkSignedByApple(jws)
      throw LedgerError(.invalidPayload, "this signed data is not a notification")
    }
    return unverified
  }

  /// Throws `verification_failed` unless Apple's chain signed `jws`, whatever its kind (and,
  /// where the payload names an app, it is this one).
  private func checkSignedByApple(_ jws: String) async throws(LedgerError) {
    do {
      _ = try await unroutable.signedDate.verifyUnroutable(UnverifiedJWS(jws))
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
  }
}
