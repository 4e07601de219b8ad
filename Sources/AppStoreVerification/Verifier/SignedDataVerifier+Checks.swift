import Crypto
import Foundation
import StoreLedgerCore

extension SignedDataVerifier {
  /// The token's header, and whether it came from the cache (and so need not be remembered).
  func header(of token: CompactJWS) throws(VerificationError) -> (JWSHeader, cached: Bool) {
    if let cached = headers?.header(for: token.headerSegment) { return (cached, true) }
    return (try JWSHeader(json: try CompactJWS.decode(token.headerSegment)), false)
  }

  static func decodePayload<Payload: Decodable>(_ type: Payload.Type, from token: CompactJWS)
    throws(VerificationError) -> Payload
  {
    do {
      return try JSONDecoding.decoder.decode(type, from: token.payloadJSON)
    } catch {
      throw VerificationError(
        .malformedPayload, "the payload is not JSON of the \(Payload.self) shape")
    }
  }

  func validationDate(for payload: some AppStoreSignedPayload) -> Date {
    switch configuration.validationTime {
    case .signedDate: payload.signingTime?.date ?? Date()
    case .now: Date()
    case .fixed(let date): date
    }
  }

  static func checkSignature(_ token: CompactJWS, key: P256.Signing.PublicKey)
    throws(VerificationError)
  {
    guard token.signature.count == 64,
      let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature),
      key.isValidSignature(signature, for: token.signingInput)
    else {
      throw VerificationError(.invalidSignature, "the ES256 signature does not verify")
    }
  }

  /// Bundle first, then App Apple ID, then environment: the order Apple's libraries report in.
  func checkIdentity(_ claims: IdentityClaims) throws(VerificationError) {
    if let expected = configuration.bundleId, case .carried(let bundleId) = claims.bundleId,
      bundleId != expected
    {
      throw VerificationError(
        .bundleIdMismatch, "the payload's bundle id is not the configured one")
    }
    let isProduction = configuration.environment == .production || claims.environment == .production
    if let expected = configuration.appAppleId, isProduction,
      case .carried(let appAppleId) = claims.appAppleId, appAppleId != expected
    {
      throw VerificationError(
        .appAppleIdMismatch, "the payload's App Apple ID is not the configured one")
    }
    if let expected = configuration.environment, claims.environment != expected {
      throw VerificationError(
        .environmentMismatch, "the payload's environment is not \(expected)")
    }
  }
}
