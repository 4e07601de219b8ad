import Crypto
import Foundation
import StoreLedgerCore

/// Verifies every kind of data the App Store signs and decodes it.
///
/// Order of checks: compact form and header; `alg` ES256; the payload parses; it is not
/// Xcode/LocalTesting data; the `x5c` chain validates to a trusted root at the validation
/// time and carries Apple's markers; the ES256 signature verifies; identity matches.
/// The payload is only returned once all of them pass. Safe to share between tasks.
public final class SignedDataVerifier: Sendable {
  public let configuration: VerifierConfiguration
  let chains: ChainValidator
  let headers: HeaderCache?

  public init(configuration: VerifierConfiguration) throws(VerificationError) {
    if configuration.environment == .production, configuration.appAppleId == nil {
      throw VerificationError(
        .invalidConfiguration, "a Production verifier needs the app's App Apple ID")
    }
    if let environment = configuration.environment, environment.isUnsigned,
      !configuration.allowUnverifiedEnvironments
    {
      throw VerificationError(
        .invalidConfiguration, "\(environment) data is never signed; allow unverified environments")
    }
    self.configuration = configuration
    self.chains = ChainValidator(
      roots: configuration.trustedRoots, cacheCapacity: configuration.chainCacheCapacity)
    self.headers = configuration.chainCacheCapacity.map(HeaderCache.init(capacity:))
  }

  public func verifyTransaction(_ jws: String) async throws(VerificationError)
    -> VerifiedTransaction
  {
    try await verify(jws, as: JWSTransactionDecodedPayload.self)
  }

  public func verifyRenewalInfo(_ jws: String) async throws(VerificationError)
    -> VerifiedRenewalInfo
  {
    try await verify(jws, as: JWSRenewalInfoDecodedPayload.self)
  }

  public func verifyAppTransaction(_ jws: String) async throws(VerificationError)
    -> VerifiedAppTransaction
  {
    try await verify(jws, as: JWSAppTransactionDecodedPayload.self)
  }

  public func verifyRealtimeRequest(_ jws: String) async throws(VerificationError)
    -> VerifiedRealtimeRequest
  {
    try await verify(jws, as: DecodedRealtimeRequestBody.self)
  }

  /// Verifies a notification's `signedPayload` and every JWS nested in it.
  ///
  /// Nested data must also belong to the notification's own environment and bundle.
  public func verifyNotification(_ signedPayload: String) async throws(VerificationError)
    -> VerifiedNotification
  {
    let outer = try await verify(signedPayload, as: ResponseBodyV2DecodedPayload.self)
    return try await nested(in: outer)
  }

  /// Verifies one JWS of any payload type.
  public func verify<Payload: AppStoreSignedPayload>(_ jws: String, as type: Payload.Type)
    async throws(VerificationError) -> SignedData<Payload, AppleSigned>
  {
    let token = try CompactJWS(jws)
    let header = try checkedHeader(of: token)
    let payload = try Self.decodePayload(type, from: token)
    return try await verify(token, jws, header: header, payload: payload)
  }

  /// Verifies data whose payload a caller has already read (to choose this verifier by the
  /// environment it claims): the payload is not read again.
  public func verify<Payload: AppStoreSignedPayload>(_ unverified: UnverifiedJWS<Payload>)
    async throws(VerificationError) -> SignedData<Payload, AppleSigned>
  {
    let header = try checkedHeader(of: unverified.token)
    return try await verify(
      unverified.token, unverified.compact, header: header, payload: unverified.claims)
  }

  /// A notification read by the caller, and every JWS nested in it.
  public func verifyNotification(_ unverified: UnverifiedJWS<ResponseBodyV2DecodedPayload>)
    async throws(VerificationError) -> VerifiedNotification
  {
    try await nested(in: verify(unverified))
  }

  /// Verifies a notification whose app cannot be read: no body object this release models
  /// names its environment, so no environment's verifier can be chosen. The chain and the
  /// signature cover the whole payload whatever its body, and are checked as for any
  /// notification; of its identity, only what the payload does carry must match (a bundle id
  /// or App Apple ID that is not this app's is refused). Nested JWS are not opened: none is
  /// known to be there.
  public func verifyUnroutable(_ unverified: UnverifiedJWS<ResponseBodyV2DecodedPayload>)
    async throws(VerificationError) -> VerifiedNotification
  {
    let header = try checkedHeader(of: unverified.token)
    let payload = unverified.claims
    let outer = try await verify(
      unverified.token, unverified.compact, header: header, payload: payload
    ) { () throws(VerificationError) in
      if let expected = self.configuration.bundleId, let bundleId = payload.bundleId,
        bundleId != expected
      {
        throw VerificationError(
          .bundleIdMismatch, "the payload's bundle id is not the configured one")
      }
      if let expected = self.configuration.appAppleId, let appAppleId = payload.appAppleId,
        appAppleId != expected
      {
        throw VerificationError(
          .appAppleIdMismatch, "the payload's App Apple ID is not the configured one")
      }
    }
    return SignedNotification(
      notification: outer, transaction: nil, renewalInfo: nil, appTransaction: nil)
  }

  private func checkedHeader(of token: CompactJWS) throws(VerificationError) -> (
    JWSHeader, cached: Bool
  ) {
    let (header, cached) = try header(of: token)
    guard header.alg == JWSHeader.appStoreAlgorithm else {
      throw VerificationError(.unsupportedAlgorithm, "alg must be ES256")
    }
    return (header, cached)
  }

  /// Everything after the payload is read: environment, chain, signature, identity.
  private func verify<Payload: AppStoreSignedPayload>(
    _ token: CompactJWS, _ jws: String, header: (JWSHeader, cached: Bool), payload: Payload,
    identity: (() throws(VerificationError) -> Void)? = nil
  ) async throws(VerificationError) -> SignedData<Payload, AppleSigned> {
    if let environment = payload.identityClaims.environment, environment.isUnsigned {
      throw VerificationError(
        .unverifiedEnvironmentNotAllowed,
        "\(environment) data is not signed by Apple and is only decoded on explicit request")
    }
    let certificates = try header.0.leafAndIntermediate()
    let key = try await chains.signingKey(
      leaf: certificates.leaf, intermediate: certificates.intermediate,
      at: validationDate(for: payload))
    try Self.checkSignature(token, key: key)
    if let disagreement = payload.identityDisagreement { throw disagreement }
    if let identity { try identity() } else { try checkIdentity(payload.identityClaims) }
    if !header.cached { headers?.remember(header.0, for: token.headerSegment) }
    return SignedData(payload: payload, payloadJSON: token.payloadJSON, compactJWS: jws)
  }

  /// Decodes Xcode or LocalTesting data without any signature or chain check.
  ///
  /// Refused unless the configuration allows unverified environments, and refused for
  /// Production and Sandbox data, which must go through the verifying calls.
  public func decodeUnverified<Payload: AppStoreSignedPayload>(_ jws: String, as type: Payload.Type)
    throws(VerificationError) -> SignedData<Payload, Unverified>
  {
    guard configuration.allowUnverifiedEnvironments else {
      throw VerificationError(
        .unverifiedEnvironmentNotAllowed, "decoding unverified data was not allowed")
    }
    let token = try CompactJWS(jws)
    _ = try header(of: token)
    let payload = try Self.decodePayload(type, from: token)
    guard let environment = payload.identityClaims.environment, environment.isUnsigned else {
      throw VerificationError(
        .unverifiedEnvironmentNotAllowed,
        "only Xcode and LocalTesting data may skip verification")
    }
    if let disagreement = payload.identityDisagreement { throw disagreement }
    try checkIdentity(payload.identityClaims)
    return SignedData(payload: payload, payloadJSON: token.payloadJSON, compactJWS: jws)
  }

  /// Decodes an Xcode or LocalTesting notification and its nested JWS without checks.
  public func decodeUnverifiedNotification(_ signedPayload: String) async throws(VerificationError)
    -> SignedNotification<Unverified>
  {
    let outer = try decodeUnverified(signedPayload, as: ResponseBodyV2DecodedPayload.self)
    return try await nested(in: outer)
  }
}

extension AppStoreEnvironment {
  /// Environments whose data Apple never signs with its production chain.
  var isUnsigned: Bool { self == .xcode || self == .localTesting }
}
