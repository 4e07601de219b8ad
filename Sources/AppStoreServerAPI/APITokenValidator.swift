import Crypto
import Foundation

/// Checks bearer tokens the way the App Store Server API does (reference §6.2): ES256 by a
/// known key, `aud` `appstoreconnect-v1`, the expected `bid` and `iss`, not expired, not issued
/// in the future, and `exp` at most 60 minutes after `iat` (or after now, for a token without
/// `iat`). Used by the local App Store.
public struct APITokenValidator: Sendable {
  public var keys: [String: P256.Signing.PublicKey]
  public var issuerId: String
  public var bundleId: String
  /// Clock difference tolerated for `iat` in the future, in seconds.
  public var leeway: Int64

  public init(
    keys: [String: P256.Signing.PublicKey], issuerId: String, bundleId: String, leeway: Int64 = 60
  ) {
    self.keys = keys
    self.issuerId = issuerId
    self.bundleId = bundleId
    self.leeway = leeway
  }

  /// The token's claims when it is acceptable at `now`.
  @discardableResult
  public func validate(bearer compact: String, now: Date = Date()) throws(APITokenError)
    -> APIToken
  {
    let token = try APIToken.verified(compact, keys: keys)
    guard token.audience == APIToken.audience, token.bundleId == bundleId,
      token.issuerId == issuerId
    else { throw APITokenError(.wrongClaims, "the token's aud, bid or iss is not this app's") }
    let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
    // Without `iat` (Apple's libraries send none) the lifetime counts from now: `exp` at most
    // 60 minutes ahead, which is what Apple enforces.
    let issued = token.issuedAt ?? seconds
    guard token.expiresAt > seconds, issued <= seconds + leeway,
      token.expiresAt - issued <= APIToken.maximumLifetime,
      token.expiresAt - seconds <= APIToken.maximumLifetime + leeway,
      token.expiresAt > issued
    else {
      throw APITokenError(
        .badLifetime, "the token is expired, not valid yet, or valid for over 60 minutes")
    }
    return token
  }
}
