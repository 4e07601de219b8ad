import AppStoreServerAPI
import AppStoreVerification
import Crypto
import Foundation
import Testing

/// Bearer tokens for the App Store Server API: minted like Apple's libraries mint them, and
/// checked like Apple checks them.
@Suite struct APITokenTests {
  static let key = P256.Signing.PrivateKey()
  static let apiKey = APIKey(
    keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
    bundleId: "com.example.app", privateKey: key)
  static let validator = APITokenValidator(
    keys: ["2X9R4HXF34": key.publicKey], issuerId: apiKey.issuerId, bundleId: "com.example.app")
  static let now = Date(timeIntervalSince1970: 1_790_000_000)

  @Test func aMintedTokenHasApplesHeaderAndClaimsAndValidates() throws {
    let token = try Self.apiKey.token(now: Self.now)
    let parts = token.split(separator: ".").map(String.init)
    #expect(parts.count == 3)
    let header =
      try JSONSerialization.jsonObject(
        with: Data(try #require(Base64Bytes.decode(parts[0], alphabet: .urlUnpadded))))
      as? [String: String]
    #expect(header == ["alg": "ES256", "kid": "2X9R4HXF34", "typ": "JWT"])
    let claims = try Self.validator.validate(bearer: token, now: Self.now)
    #expect(claims.audience == "appstoreconnect-v1")
    #expect(claims.issuedAt == 1_790_000_000 && claims.expiresAt == 1_790_000_300)
    #expect(claims.bundleId == "com.example.app")
  }

  @Test func aP8FileIsRead() throws {
    let pem = Self.key.pemRepresentation
    #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    let fromFile = try APIKey(
      keyId: "2X9R4HXF34", issuerId: Self.apiKey.issuerId, bundleId: "com.example.app", p8: pem)
    try Self.validator.validate(bearer: try fromFile.token(now: Self.now), now: Self.now)
    let error = #expect(throws: APITokenError.self) {
      try APIKey(keyId: "k", issuerId: "i", bundleId: "b", p8: "not a key")
    }
    #expect(error?.code == .invalidKey)
  }

  @Test(arguments: [
    (APIToken.Kind.tamperedSignature, APITokenError.Code.badSignature),
    (.otherKey, .badSignature), (.unknownKeyId, .unknownKey), (.wrongAudience, .wrongClaims),
    (.wrongBundle, .wrongClaims), (.wrongIssuer, .wrongClaims), (.expired, .badLifetime),
    (.tooLong, .badLifetime), (.fromTheFuture, .badLifetime), (.garbage, .malformed),
  ])
  func badTokensAreRefused(kind: APIToken.Kind, code: APITokenError.Code) throws {
    let token = try kind.make(key: Self.key, now: Self.now)
    let error = #expect(throws: APITokenError.self) {
      try Self.validator.validate(bearer: token, now: Self.now)
    }
    #expect(error?.code == code)
  }

  @Test func lifetimesAreCappedAtAnHour() throws {
    let token = try Self.apiKey.token(now: Self.now, lifetime: 7200)
    #expect(try Self.validator.validate(bearer: token, now: Self.now).expiresAt == 1_790_003_600)
  }
}

/// Apple's own libraries make tokens without `iat`: accepted while `exp` is at most 60 minutes
/// ahead, as Apple accepts them.
@Test func aTokenWithoutIssuedAtIsAcceptedAsApplesLibrariesMakeIt() throws {
  let at = Int64(APITokenTests.now.timeIntervalSince1970)
  let key = P256.Signing.PrivateKey()
  let validator = APITokenValidator(
    keys: ["K1": key.publicKey], issuerId: APITokenTests.apiKey.issuerId,
    bundleId: "com.example.app")
  let token = try APIToken(
    keyId: "K1", issuerId: APITokenTests.apiKey.issuerId, bundleId: "com.example.app",
    issuedAt: nil, expiresAt: at + 300
  ).signed(with: key)
  #expect(!token.isEmpty)
  let claims = try validator.validate(bearer: token, now: APITokenTests.now)
  #expect(claims.issuedAt == nil && claims.expiresAt == at + 300)
}

extension APIToken {
  /// Ways a token can be wrong.
  enum Kind: CaseIterable, Sendable {
    case tamperedSignature, otherKey, unknownKeyId, wrongAudience, wrongBundle, wrongIssuer
    case expired, tooLong, fromTheFuture, garbage, tooLongWithoutIssuedAt

    func make(key: P256.Signing.PrivateKey, now: Date) throws -> String {
      let at = Int64(now.timeIntervalSince1970)
      var token = APIToken(
        keyId: "2X9R4HXF34", issuerId: APITokenTests.apiKey.issuerId, bundleId: "com.example.app",
        issuedAt: at, expiresAt: at + 300)
      var signer = key
      switch self {
      case .tamperedSignature:
        let good = try token.signed(with: key)
        return String(good.dropLast(2)) + (good.hasSuffix("AA") ? "BA" : "AA")
      case .otherKey: signer = P256.Signing.PrivateKey()
      case .unknownKeyId: token.keyId = "NOT-A-KEY"
      case .wrongAudience: token.audience = "someone-else"
      case .wrongBundle: token.bundleId = "com.example.other"
      case .wrongIssuer: token.issuerId = "00000000-0000-0000-0000-000000000000"
      case .expired: (token.issuedAt, token.expiresAt) = (at - 900, at - 600)
      case .tooLong: token.expiresAt = at + 3601
      case .fromTheFuture: (token.issuedAt, token.expiresAt) = (at + 600, at + 900)
      case .garbage: return "not.a-token"
      case .tooLongWithoutIssuedAt: (token.issuedAt, token.expiresAt) = (nil, at + 3_700)
      }
      return try token.signed(with: signer)
    }
  }
}

/// History filters as Apple's own libraries spell them: Python sends `revoked=False`.
@Test func aHistoryFilterIsReadInAnyLetterCase() throws {
  for (text, expected) in [("False", false), ("TRUE", true), ("false", false)] {
    let request = try TransactionHistoryRequest(queryItems: [(name: "revoked", value: text)])
    #expect(request.revoked == expected)
  }
  #expect(throws: APIErrorResponse.Failure.self) {
    try TransactionHistoryRequest(queryItems: [(name: "revoked", value: "no")])
  }
}
