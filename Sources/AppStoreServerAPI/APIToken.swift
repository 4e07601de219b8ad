import AppStoreVerification
import Crypto
import Foundation

/// The claims of an App Store Server API bearer token (reference §6.2): ES256, `kid` the key
/// id; `iss` the issuer id, `exp` (and optionally `iat`) in Unix seconds, at most 60 minutes
/// ahead, `aud` `appstoreconnect-v1`, `bid` the bundle id. No `nonce`: Apple's current page and
/// libraries send none, and Apple's own libraries send no `iat` either.
public struct APIToken: Sendable, Hashable, Codable {
  public static let audience = "appstoreconnect-v1"
  /// The longest lifetime Apple accepts.
  public static let maximumLifetime: Int64 = 3600

  public var keyId: String
  public var issuerId: String
  public var bundleId: String
  /// Nil when the token has no `iat` (as Apple's server libraries make them).
  public var issuedAt: Int64?
  public var expiresAt: Int64
  public var audience: String

  public init(
    keyId: String, issuerId: String, bundleId: String, issuedAt: Int64?, expiresAt: Int64,
    audience: String = APIToken.audience
  ) {
    self.keyId = keyId
    self.issuerId = issuerId
    self.bundleId = bundleId
    self.issuedAt = issuedAt
    self.expiresAt = expiresAt
    self.audience = audience
  }

  struct Header: Codable {
    var alg: String
    var kid: String
    var typ: String?
  }

  struct Claims: Codable {
    var iss: String
    var iat: Int64?
    var exp: Int64
    var aud: String
    var bid: String
  }

  /// The compact JWS of these claims, signed with `key`.
  public func signed(with key: P256.Signing.PrivateKey) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let header = try encoder.encode(Header(alg: "ES256", kid: keyId, typ: "JWT"))
    let claims = try encoder.encode(
      Claims(iss: issuerId, iat: issuedAt, exp: expiresAt, aud: audience, bid: bundleId))
    let input =
      Base64Bytes.encode(header, alphabet: .urlUnpadded) + "."
      + Base64Bytes.encode(claims, alphabet: .urlUnpadded)
    let signature = try key.signature(for: Data(input.utf8))
    return input + "." + Base64Bytes.encode(signature.rawRepresentation, alphabet: .urlUnpadded)
  }

  /// Reads a compact token and checks its ES256 signature with the key its `kid` names
  /// (`keys`), nothing else; see ``APITokenValidator`` for the claims.
  public static func verified(
    _ compact: String, keys: [String: P256.Signing.PublicKey]
  ) throws(APITokenError) -> APIToken {
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 3,
      let headerBytes = Base64Bytes.decode(parts[0], alphabet: .urlUnpadded),
      let claimBytes = Base64Bytes.decode(parts[1], alphabet: .urlUnpadded),
      let signatureBytes = Base64Bytes.decode(parts[2], alphabet: .urlUnpadded),
      let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
      let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes))
    else { throw APITokenError(.malformed, "the token is not a compact JWS of the expected shape") }
    guard header.alg == "ES256", let key = keys[header.kid] else {
      throw APITokenError(.unknownKey, "the token is not ES256 or names an unknown key")
    }
    guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
      key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
    else { throw APITokenError(.badSignature, "the token's signature does not verify") }
    return APIToken(
      keyId: header.kid, issuerId: claims.iss, bundleId: claims.bid, issuedAt: claims.iat,
      expiresAt: claims.exp, audience: claims.aud)
  }
}
