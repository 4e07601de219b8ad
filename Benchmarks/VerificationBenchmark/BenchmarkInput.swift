import AppStoreVerification
import Crypto
import Foundation
import StoreLedgerCore
import SwiftASN1
import X509

enum BenchmarkInput {
  static func load(path: String?) throws -> (String, TrustedRoots, String) {
    if let path {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      return (text.trimmingCharacters(in: .whitespacesAndNewlines), .apple, path)
    }
    let pki = try TestPKI()
    return (try pki.sign(sampleTransaction()), pki.trustedRoots, "test PKI, full transaction")
  }

  /// Every commonly present field of a renewal transaction, so decoding costs what it does live.
  static func sampleTransaction() -> JWSTransactionDecodedPayload {
    var transaction = JWSTransactionDecodedPayload()
    transaction.transactionId = "2000001032604840"
    transaction.originalTransactionId = "2000001024993299"
    transaction.webOrderLineItemId = "2000000114328105"
    transaction.bundleId = "com.example.app"
    transaction.productId = "com.example.pro.monthly"
    transaction.subscriptionGroupIdentifier = "21468345"
    transaction.purchaseDate = Timestamp(milliseconds: 1_760_335_129_000)
    transaction.originalPurchaseDate = Timestamp(milliseconds: 1_759_727_790_000)
    transaction.expiresDate = Timestamp(milliseconds: 1_762_927_129_000)
    transaction.quantity = 1
    transaction.type = .autoRenewableSubscription
    transaction.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    transaction.inAppOwnershipType = .purchased
    transaction.signedDate = Timestamp(milliseconds: 1_760_592_122_788)
    transaction.environment = .sandbox
    transaction.transactionReason = .renewal
    transaction.storefront = "USA"
    transaction.storefrontId = "143441"
    transaction.price = 9990
    transaction.currency = "USD"
    transaction.appTransactionId = "704964087023917337"
    return transaction
  }
}

/// The raw ES256 verification of the same JWS: the ceiling the verifier is measured against.
struct RawP256Signature {
  let key: P256.Signing.PublicKey
  let signature: P256.Signing.ECDSASignature
  let signingInput: [UInt8]

  init(jws: String) throws {
    let parts = jws.split(separator: ".").map(String.init)
    let header = try JSONSerialization.jsonObject(with: Self.base64URL(parts[0])) as! [String: Any]
    let leafBase64 = (header["x5c"] as! [String])[0]
    let leaf = try Certificate(derEncoded: Array(Data(base64Encoded: leafBase64)!))
    self.key = P256.Signing.PublicKey(leaf.publicKey)!
    self.signature = try P256.Signing.ECDSASignature(rawRepresentation: Self.base64URL(parts[2]))
    self.signingInput = Array((parts[0] + "." + parts[1]).utf8)
  }

  func verify() throws {
    guard key.isValidSignature(signature, for: signingInput) else {
      throw VerificationError(.invalidSignature, "benchmark signature does not verify")
    }
  }

  static func base64URL(_ text: String) -> Data {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
      of: "_", with: "/")
    while standard.count % 4 != 0 { standard += "=" }
    return Data(base64Encoded: standard)!
  }
}

/// A P-384 verification, the cost of each certificate signature in Apple's chain.
struct RawP384Signature {
  let key: P384.Signing.PublicKey
  let signature: P384.Signing.ECDSASignature
  let message = Array(repeating: UInt8(7), count: 600)

  init() {
    let privateKey = P384.Signing.PrivateKey()
    self.key = privateKey.publicKey
    self.signature = try! privateKey.signature(for: message)
  }

  func verify() throws {
    guard key.isValidSignature(signature, for: message) else {
      throw VerificationError(.invalidSignature, "benchmark signature does not verify")
    }
  }
}
