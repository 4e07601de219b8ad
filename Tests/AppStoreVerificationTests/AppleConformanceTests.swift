import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The outcomes the README of Apple's Swift library test data lists, with its test root.
@Suite struct AppleConformanceTests {
  static let testRoot = "conformance/apple-swift-library/certs/testCA.der"

  func verifier(
    bundleId: String = "com.example", appAppleId: Int64? = nil,
    environment: AppStoreEnvironment = .sandbox
  ) throws -> SignedDataVerifier {
    try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: TrustedRoots(derEncoded: [SharedFixtures.bytes(Self.testRoot)]),
        bundleId: bundleId, appAppleId: appAppleId, environment: environment))
  }

  @Test func testNotificationVerifiesForSandbox() async throws {
    let verified = try await verifier().verifyNotification(
      SharedFixtures.mockSigned("testNotification"))
    #expect(verified.payload.notificationType == .test)
    #expect(verified.payload.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
    #expect(verified.payload.signedDate?.milliseconds == 1_681_314_324_000)
    #expect(verified.payload.data?.appAppleId == 1234)
    #expect(verified.transaction == nil && verified.renewalInfo == nil)
  }

  /// Read once by the caller (who chooses the verifier by the environment it claims), then
  /// verified without reading it again: the same outcomes as verifying the string.
  @Test func aNotificationReadOnceVerifiesAsTheStringDoes() async throws {
    let jws = try SharedFixtures.mockSigned("testNotification")
    let unverified = try UnverifiedJWS<ResponseBodyV2DecodedPayload>(jws)
    #expect(unverified.claims.environment == .sandbox)
    let verified = try await verifier().verifyNotification(unverified)
    #expect(verified.payload == (try await verifier().verifyNotification(jws)).payload)
    #expect(verified.notification.compactJWS == jws)
    for (name, code) in [
      ("wrongBundleId", VerificationError.Code.bundleIdMismatch),
      ("missingX5CHeaderClaim", .malformedJWS),
    ] {
      let error = try await #require(throws: VerificationError.self) {
        try await verifier().verifyNotification(
          UnverifiedJWS<ResponseBodyV2DecodedPayload>(SharedFixtures.mockSigned(name)))
      }
      #expect(error.code == code)
    }
    let production = try await #require(throws: VerificationError.self) {
      try await verifier(appAppleId: 1234, environment: .production).verifyNotification(unverified)
    }
    #expect(production.code == .environmentMismatch)
  }

  @Test func testNotificationIsRejectedByAProductionVerifier() async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await verifier(appAppleId: 1234, environment: .production)
        .verifyNotification(SharedFixtures.mockSigned("testNotification"))
    }
    #expect(error.code == .environmentMismatch)
  }

  @Test func testNotificationCheckedAsTransactionHasNoBundleId() async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await verifier(appAppleId: 1235).verifyTransaction(
        SharedFixtures.mockSigned("testNotification"))
    }
    #expect(error.code == .bundleIdMismatch)
  }

  @Test func transactionInfoVerifies() async throws {
    let verified = try await verifier().verifyTransaction(
      SharedFixtures.mockSigned("transactionInfo"))
    #expect(verified.payload.environment == .sandbox)
    #expect(verified.payload.bundleId == "com.example")
    #expect(verified.payload.signedDate?.milliseconds == 1_672_956_154_000)
  }

  @Test func transactionInfoForAnotherBundleIsRejected() async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await verifier(bundleId: "com.example.x").verifyTransaction(
        SharedFixtures.mockSigned("transactionInfo"))
    }
    #expect(error.code == .bundleIdMismatch)
  }

  @Test func renewalInfoVerifiesWithoutBundleCheck() async throws {
    let verified = try await verifier(bundleId: "com.other").verifyRenewalInfo(
      SharedFixtures.mockSigned("renewalInfo"))
    #expect(verified.payload.environment == .sandbox)
    #expect(verified.payload.signedDate?.milliseconds == 1_672_956_154_000)
  }

  @Test func wrongBundleIdIsRejected() async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await verifier().verifyNotification(SharedFixtures.mockSigned("wrongBundleId"))
    }
    #expect(error.code == .bundleIdMismatch)
  }

  @Test func missingX5CIsMalformed() async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await verifier().verifyNotification(SharedFixtures.mockSigned("missingX5CHeaderClaim"))
    }
    #expect(error.code == .malformedJWS)
  }

  @Test func testDataIsNotTrustedUnderApplesRoot() async throws {
    let verifier = try SignedDataVerifier(configuration: VerifierConfiguration())
    let error = try await #require(throws: VerificationError.self) {
      try await verifier.verifyTransaction(SharedFixtures.mockSigned("transactionInfo"))
    }
    #expect(error.code == .untrustedRoot)
  }
}

/// Xcode StoreKit-testing data: never signed by Apple, so refused unless explicitly allowed.
@Suite struct XcodeDataTests {
  static let files = [
    "xcode-signed-transaction", "xcode-signed-renewal-info", "xcode-signed-app-transaction",
  ]

  @Test(arguments: files)
  func rejectedByDefault(file: String) async throws {
    let verifier = try SignedDataVerifier(configuration: VerifierConfiguration())
    let jws = try SharedFixtures.xcode(file)
    let error = try await #require(throws: VerificationError.self) {
      switch try SignedDataKind.of(jws) {
      case .transaction: _ = try await verifier.verifyTransaction(jws)
      case .renewalInfo: _ = try await verifier.verifyRenewalInfo(jws)
      default: _ = try await verifier.verifyAppTransaction(jws)
      }
    }
    #expect(error.code == .unverifiedEnvironmentNotAllowed)
    #expect(throws: VerificationError.self) {
      try verifier.decodeUnverified(jws, as: JWSTransactionDecodedPayload.self)
    }
  }

  func permissive() throws -> SignedDataVerifier {
    try SignedDataVerifier(
      configuration: VerifierConfiguration(
        bundleId: "com.example.naturelab.backyardbirds.example", allowUnverifiedEnvironments: true))
  }

  @Test func transactionDecodesWithTheExplicitOption() throws {
    let jws = try SharedFixtures.xcode("xcode-signed-transaction")
    let transaction = try permissive().decodeUnverified(jws, as: JWSTransactionDecodedPayload.self)
      .payload
    #expect(try SignedDataKind.of(jws) == .transaction)
    #expect(transaction.originalTransactionId == "0")
    #expect(transaction.transactionId == "0")
    #expect(transaction.webOrderLineItemId == "0")
    #expect(transaction.productId == "pass.premium")
    #expect(transaction.subscriptionGroupIdentifier == "6F3A93AB")
    #expect(transaction.purchaseDate?.milliseconds == 1_697_679_936_049)
    #expect(transaction.originalPurchaseDate == transaction.purchaseDate)
    #expect(transaction.expiresDate?.milliseconds == 1_700_358_336_049)
    #expect(transaction.quantity == 1)
    #expect(transaction.type == .autoRenewableSubscription)
    #expect(transaction.inAppOwnershipType == .purchased)
    #expect(transaction.signedDate?.milliseconds == 1_697_679_936_056)
    #expect(transaction.isUpgraded == false)
    #expect(transaction.offerType == .introductory)
    #expect(transaction.environment == .xcode)
    #expect(transaction.storefront == "USA" && transaction.storefrontId == "143441")
    #expect(transaction.transactionReason == .purchase)
    #expect(transaction.appAccountToken == nil && transaction.revocationDate == nil)
  }

  @Test func renewalInfoDecodesWithTheExplicitOption() throws {
    let jws = try SharedFixtures.xcode("xcode-signed-renewal-info")
    let renewal = try permissive().decodeUnverified(jws, as: JWSRenewalInfoDecodedPayload.self)
      .payload
    #expect(try SignedDataKind.of(jws) == .renewalInfo)
    #expect(renewal.originalTransactionId == "0")
    #expect(renewal.autoRenewProductId == "pass.premium" && renewal.productId == "pass.premium")
    #expect(renewal.autoRenewStatus == .on)
    #expect(renewal.signedDate?.milliseconds == 1_697_679_936_711)
    #expect(renewal.environment == .xcode)
    #expect(renewal.recentSubscriptionStartDate?.milliseconds == 1_697_679_936_049)
    #expect(renewal.renewalDate?.milliseconds == 1_700_358_336_049)
    #expect(renewal.expirationIntent == nil && renewal.isInBillingRetryPeriod == nil)
    #expect(renewal.gracePeriodExpiresDate == nil && renewal.offerType == nil)
  }

  @Test func appTransactionDecodesWithTheExplicitOption() throws {
    let jws = try SharedFixtures.xcode("xcode-signed-app-transaction")
    let app = try permissive().decodeUnverified(jws, as: JWSAppTransactionDecodedPayload.self)
      .payload
    #expect(try SignedDataKind.of(jws) == .appTransaction)
    #expect(app.receiptType == .xcode)
    #expect(app.appAppleId == nil)
    #expect(app.applicationVersion == "1" && app.originalApplicationVersion == "1")
    #expect(app.originalPurchaseDate?.milliseconds == -62_135_769_600_000)
    #expect(app.deviceVerificationNonce == "48c8b92d-ce0d-4229-bedf-e61b4f9cfc92")
    #expect(app.preorderDate == nil)
  }

  @Test func explicitOptionStillRefusesToSkipChecksForAppleEnvironments() throws {
    let jws = try SharedFixtures.realApple("transaction-sandbox-2025-10-16.jws")
    let error = try #require(throws: VerificationError.self) {
      try permissive().decodeUnverified(jws, as: JWSTransactionDecodedPayload.self)
    }
    #expect(error.code == .unverifiedEnvironmentNotAllowed)
  }

  @Test func explicitOptionStillChecksIdentity() throws {
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(bundleId: "com.other", allowUnverifiedEnvironments: true)
    )
    let error = try #require(throws: VerificationError.self) {
      try verifier.decodeUnverified(
        SharedFixtures.xcode("xcode-signed-transaction"), as: JWSTransactionDecodedPayload.self)
    }
    #expect(error.code == .bundleIdMismatch)
  }
}
