import Crypto
import Foundation
import StoreLedgerCore

/// A promotional offer signature (Apple's first signature version, what StoreKit's
/// `Product.SubscriptionOffer.Signature` and `SKPaymentDiscount` take): ECDSA P-256 with
/// SHA-256 over the app's bundle id, the key id, the product, the offer, the customer's
/// token, a nonce and a timestamp joined by U+2063, DER-encoded and in base64. Apple honours
/// it for 24 hours from the timestamp.
public struct PromotionalOfferSignature: Sendable, Hashable, Codable {
  public var keyId: String
  public var productId: String
  public var offerIdentifier: String
  /// Lower case; empty when the offer is not tied to an account.
  public var appAccountToken: String
  /// A lower-case UUID, new for every signature.
  public var nonce: String
  /// Unix milliseconds.
  public var timestamp: Int64
  public var signature: String

  /// The string Apple verifies the signature over.
  public static func payload(
    bundleId: String, keyId: String, productId: String, offerIdentifier: String,
    appAccountToken: String, nonce: String, timestamp: Int64
  ) -> String {
    [
      bundleId, keyId, productId, offerIdentifier, appAccountToken.lowercased(),
      nonce.lowercased(), String(timestamp),
    ].joined(separator: "\u{2063}")
  }

  /// Signs with the In-App Purchase key `key` (its bundle id is the app's).
  public static func sign(
    productId: String, offerIdentifier: String, appAccountToken: String?, key: APIKey,
    nonce: UUID = UUID(), timestamp: Date = Date()
  ) throws -> PromotionalOfferSignature {
    let milliseconds = Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down))
    let token = appAccountToken?.lowercased() ?? ""
    let nonceText = nonce.uuidString.lowercased()
    let message = payload(
      bundleId: key.bundleId, keyId: key.keyId, productId: productId,
      offerIdentifier: offerIdentifier, appAccountToken: token, nonce: nonceText,
      timestamp: milliseconds)
    let signature = try key.privateKey.signature(for: Data(message.utf8))
    return PromotionalOfferSignature(
      keyId: key.keyId, productId: productId, offerIdentifier: offerIdentifier,
      appAccountToken: token, nonce: nonceText, timestamp: milliseconds,
      signature: signature.derRepresentation.base64EncodedString())
  }
}
