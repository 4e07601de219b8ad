import Crypto
import Foundation

/// An In-App Purchase API key from App Store Connect (a `.p8` file: a PKCS#8 P-256 private
/// key) with its key id, issuer id and the app's bundle id: what mints the bearer tokens.
public struct APIKey: Sendable {
  public let keyId: String
  public let issuerId: String
  public let bundleId: String
  let privateKey: P256.Signing.PrivateKey

  public init(
    keyId: String, issuerId: String, bundleId: String, privateKey: P256.Signing.PrivateKey
  ) {
    self.keyId = keyId
    self.issuerId = issuerId
    self.bundleId = bundleId
    self.privateKey = privateKey
  }

  /// From the `.p8` file's PEM text.
  public init(keyId: String, issuerId: String, bundleId: String, p8 pem: String)
    throws(APITokenError)
  {
    guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
      throw APITokenError(.invalidKey, "the key is not a PEM P-256 private key (.p8)")
    }
    self.init(keyId: keyId, issuerId: issuerId, bundleId: bundleId, privateKey: key)
  }

  public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

  /// A fresh token, as Apple asks for each request: valid from `now` for `lifetime` seconds
  /// (5 minutes, as Apple's libraries mint them; at most 60).
  public func token(now: Date = Date(), lifetime: Int64 = 300) throws -> String {
    let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
    return try APIToken(
      keyId: keyId, issuerId: issuerId, bundleId: bundleId, issuedAt: issuedAt,
      expiresAt: issuedAt + min(lifetime, APIToken.maximumLifetime)
    ).signed(with: privateKey)
  }
}
