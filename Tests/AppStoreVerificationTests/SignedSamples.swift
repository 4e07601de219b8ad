import Foundation
import StoreLedgerCore

@testable import AppStoreVerification

/// Payloads and verifiers for tests that sign their own data with a ``TestPKI``.
enum SignedSamples {
  static let bundleId = "com.example.app"
  static let appAppleId: Int64 = 1_234_567_890
  /// 2025-06-01T00:00:00Z.
  static let signedDate = Timestamp(milliseconds: 1_748_736_000_000)

  static func transaction(
    bundleId: String = bundleId, environment: AppStoreEnvironment = .sandbox,
    signedDate: Timestamp = signedDate
  ) -> JWSTransactionDecodedPayload {
    var transaction = JWSTransactionDecodedPayload()
    transaction.transactionId = "2000000000000002"
    transaction.originalTransactionId = "2000000000000001"
    transaction.bundleId = bundleId
    transaction.productId = "com.example.pro.monthly"
    transaction.type = .autoRenewableSubscription
    transaction.purchaseDate = Timestamp(milliseconds: signedDate.milliseconds - 60_000)
    transaction.expiresDate = Timestamp(milliseconds: signedDate.milliseconds + 2_592_000_000)
    transaction.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    transaction.signedDate = signedDate
    transaction.environment = environment
    return transaction
  }

  static func renewalInfo(environment: AppStoreEnvironment = .sandbox)
    -> JWSRenewalInfoDecodedPayload
  {
    var renewal = JWSRenewalInfoDecodedPayload()
    renewal.originalTransactionId = "2000000000000001"
    renewal.productId = "com.example.pro.monthly"
    renewal.autoRenewProductId = "com.example.pro.monthly"
    renewal.autoRenewStatus = .on
    renewal.signedDate = signedDate
    renewal.environment = environment
    return renewal
  }

  static func appTransaction(environment: AppStoreEnvironment = .sandbox, appAppleId: Int64? = nil)
    -> JWSAppTransactionDecodedPayload
  {
    var app = JWSAppTransactionDecodedPayload()
    app.receiptType = environment
    app.appAppleId = appAppleId
    app.bundleId = bundleId
    app.receiptCreationDate = signedDate
    app.appTransactionId = "704964087023917337"
    return app
  }

  static func notification(
    environment: AppStoreEnvironment = .sandbox, appAppleId: Int64? = nil,
    signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil
  ) -> ResponseBodyV2DecodedPayload {
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = .didRenew
    body.notificationUUID = "6b6c4f2e-3f64-4f5c-9b0a-5a4f0f1c2d3e"
    body.version = "2.0"
    body.signedDate = signedDate
    var data = NotificationData()
    data.bundleId = bundleId
    data.appAppleId = appAppleId
    data.environment = environment
    data.signedTransactionInfo = signedTransactionInfo
    data.signedRenewalInfo = signedRenewalInfo
    data.status = .active
    body.data = data
    return body
  }

  /// A fully nested notification signed by `pki`.
  static func signedNotification(_ pki: TestPKI, environment: AppStoreEnvironment = .sandbox)
    throws -> String
  {
    try pki.sign(
      notification(
        environment: environment,
        appAppleId: environment == .production ? appAppleId : nil,
        signedTransactionInfo: pki.sign(transaction(environment: environment)),
        signedRenewalInfo: pki.sign(renewalInfo(environment: environment))))
  }

  static func verifier(
    _ pki: TestPKI, environment: AppStoreEnvironment? = .sandbox,
    validationTime: ValidationTime = .signedDate, cacheCapacity: Int? = 64
  ) throws -> SignedDataVerifier {
    try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: pki.trustedRoots, bundleId: bundleId,
        appAppleId: environment == .production ? appAppleId : nil, environment: environment,
        validationTime: validationTime, chainCacheCapacity: cacheCapacity))
  }

  /// Replaces segment `index` of `jws` with `bytes`, base64url-encoded.
  static func replacingSegment(_ index: Int, of jws: String, with bytes: [UInt8]) -> String {
    var segments = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    segments[index] = Base64Bytes.encode(bytes, alphabet: .urlUnpadded)
    return segments.joined(separator: ".")
  }

  /// The decoded bytes of segment `index` of `jws`.
  static func segment(_ index: Int, of jws: String) -> [UInt8] {
    let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
    return Base64Bytes.decode(String(segments[index]), alphabet: .urlUnpadded)!
  }
}
