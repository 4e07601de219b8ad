import AppStoreVerification
import Crypto
import Foundation
import StoreLedgerCore

/// The JWS an app passes to StoreKit to authorize a request (StoreKit *Generating JWS to sign
/// App Store requests*): ES256 with the In-App Purchase key (`kid` its key id), the claims
/// `iss` (issuer id), `bid` (bundle id), `aud` (the feature), `iat` (seconds), `nonce` (a fresh
/// UUID) and the feature's own claims.
public struct AppStoreRequestSignature: Sendable, Hashable, Codable {
  /// `aud` of a promotional offer signature (the JWS form, StoreKit 2 on iOS 15 and later).
  public static let promotionalOffer = "promotional-offer"
  /// `aud` of an introductory offer eligibility signature.
  public static let introductoryOfferEligibility = "introductory-offer-eligibility"

  public var audience: String
  public var nonce: String
  /// Unix seconds.
  public var issuedAt: Int64
  /// The compact JWS.
  public var jws: String

  /// A promotional offer signature for `productId`'s offer `offerIdentifier`;
  /// `transactionId` (any of the customer's, or their appTransactionId) is optional but
  /// recommended.
  public static func promotionalOffer(
    productId: String, offerIdentifier: String, transactionId: String?, key: APIKey,
    nonce: UUID = UUID(), at time: Date = Date()
  ) throws -> AppStoreRequestSignature {
    var claims: [String: Claim] = [
      "productId": .string(productId), "offerIdentifier": .string(offerIdentifier),
    ]
    if let transactionId { claims["transactionId"] = .string(transactionId) }
    return try sign(audience: promotionalOffer, claims: claims, key: key, nonce: nonce, at: time)
  }

  /// Whether the customer of `transactionId` may get `productId`'s introductory offer.
  public static func introductoryOfferEligibility(
    productId: String, allowIntroductoryOffer: Bool, transactionId: String, key: APIKey,
    nonce: UUID = UUID(), at time: Date = Date()
  ) throws -> AppStoreRequestSignature {
    try sign(
      audience: introductoryOfferEligibility,
      claims: [
        "productId": .string(productId), "allowIntroductoryOffer": .bool(allowIntroductoryOffer),
        "transactionId": .string(transactionId),
      ], key: key, nonce: nonce, at: time)
  }

  /// A claim's value.
  public enum Claim: Hashable, Sendable, Encodable {
    case string(String)
    case bool(Bool)
    case integer(Int64)

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .string(let value): try container.encode(value)
      case .bool(let value): try container.encode(value)
      case .integer(let value): try container.encode(value)
      }
    }
  }

  static func sign(
    audience: String, claims feature: [String: Claim], key: APIKey, nonce: UUID, at time: Date
  ) throws -> AppStoreRequestSignature {
    let issuedAt = Int64(time.timeIntervalSince1970.rounded(.down))
    let nonceText = nonce.uuidString.lowercased()
    var claims = feature
    claims["iss"] = .string(key.issuerId)
    claims["bid"] = .string(key.bundleId)
    claims["aud"] = .string(audience)
    claims["iat"] = .integer(issuedAt)
    claims["nonce"] = .string(nonceText)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let header = try encoder.encode(["alg": "ES256", "kid": key.keyId, "typ": "JWT"])
    let input =
      Base64Bytes.encode(header, alphabet: .urlUnpadded) + "."
      + Base64Bytes.encode(try encoder.encode(claims), alphabet: .urlUnpadded)
    let signature = try key.privateKey.signature(for: Data(input.utf8))
    return AppStoreRequestSignature(
      audience: audience, nonce: nonceText, issuedAt: issuedAt,
      jws: input + "." + Base64Bytes.encode(signature.rawRepresentation, alphabet: .urlUnpadded))
  }
}
