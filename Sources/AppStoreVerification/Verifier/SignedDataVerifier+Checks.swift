import Crypto
import Foundation
import StoreLedgerCore

extension SignedDataVerifier {
  /// JSONDecoder is thread-safe; one instance saves its set-up on every call.
  private static let decoder = JSONDecoder()

  static func decodeHeader(_ token: CompactJWS) throws(VerificationError) -> JWSHeader {
    do {
      return try decoder.decode(JWSHeader.self, from: Data(token.headerJSON))
    } catch {
      throw VerificationError(
        .malformedJWS, "the JWS header is not a JSON object of the JOSE shape")
    }
  }

  static func decodePayload<Payload: Decodable>(_ type: Payload.Type, from token: CompactJWS)
    throws(VerificationError) -> Payload
  {
    do {
      return try decoder.decode(type, from: Data(token.payloadJSON))
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

  func signingKey(header: JWSHeader, at time: Date) throws(VerificationError)
    -> P256.Signing.PublicKey
  {
    guard let x5c = header.x5c else {
      throw VerificationError(.malformedJWS, "the JWS header has no x5c certificate chain")
    }
    guard x5c.count == 3 else {
      throw VerificationError(
        .invalidCertificateChain, "x5c must hold exactly three certificates")
    }
    guard let leaf = Base64Bytes.decode(x5c[0], alphabet: .standardPadded),
      let intermediate = Base64Bytes.decode(x5c[1], alphabet: .standardPadded)
    else {
      throw VerificationError(.invalidCertificateChain, "an x5c entry is not standard base64")
    }
    return try chains.signingKey(leaf: leaf, intermediate: intermediate, at: time)
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
    if let expected = configuration.bundleId, case .some(let bundleId) = claims.bundleId,
      bundleId != expected
    {
      throw VerificationError(
        .bundleIdMismatch, "the payload's bundle id is not the configured one")
    }
    let isProduction = configuration.environment == .production || claims.environment == .production
    if let expected = configuration.appAppleId, isProduction,
      case .some(let appAppleId) = claims.appAppleId, appAppleId != expected
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
