import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The signed-payload bodies of Apple's Swift library decode to the values its README lists.
@Suite struct ModelDecodingTests {
  let decoder = JSONDecoder()

  @Test func signedNotification() throws {
    let body = try decoder.decode(
      ResponseBodyV2DecodedPayload.self, from: SharedFixtures.model("signedNotification.json"))
    #expect(body.notificationType == .subscribed)
    #expect(body.subtype == .initialBuy)
    #expect(body.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
    #expect(body.version == "2.0")
    #expect(body.signedDate == Timestamp(milliseconds: 1_698_148_900_000))
    let data = try #require(body.data)
    #expect(data.environment == .localTesting)
    #expect(data.appAppleId == 41234)
    #expect(data.bundleId == "com.example")
    #expect(data.bundleVersion == "1.2.3")
    #expect(data.signedTransactionInfo == "signed_transaction_info_value")
    #expect(data.signedRenewalInfo == "signed_renewal_info_value")
    #expect(data.status == .active)
    #expect(body.summary == nil && body.externalPurchaseToken == nil && body.appData == nil)
    #expect(body.environment == .localTesting && body.bundleId == "com.example")
  }

  @Test func consumptionRequestNotification() throws {
    let body = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: SharedFixtures.model("signedConsumptionRequestNotification.json"))
    #expect(body.notificationType == .consumptionRequest)
    #expect(body.subtype == nil)
    #expect(body.data?.consumptionRequestReason == .unintendedPurchase)
    #expect(body.data?.appAppleId == 41234)
  }

  @Test func summaryNotification() throws {
    let body = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: SharedFixtures.model("signedSummaryNotification.json"))
    #expect(body.notificationType == .renewalExtension)
    #expect(body.subtype == .summary)
    #expect(body.data == nil)
    let summary = try #require(body.summary)
    #expect(summary.environment == .localTesting)
    #expect(summary.appAppleId == 41234)
    #expect(summary.bundleId == "com.example")
    #expect(summary.productId == "com.example.product")
    #expect(summary.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
    #expect(summary.storefrontCountryCodes == ["CAN", "USA", "MEX"])
    #expect(summary.succeededCount == 5)
    #expect(summary.failedCount == 2)
    #expect(body.appAppleId == 41234 && body.environment == .localTesting)
  }

  @Test func externalPurchaseTokenIsProductionWithoutSandboxPrefix() throws {
    let body = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: SharedFixtures.model("signedExternalPurchaseTokenNotification.json"))
    #expect(body.notificationType == .externalPurchaseToken)
    #expect(body.subtype == .unreported)
    let token = try #require(body.externalPurchaseToken)
    #expect(token.externalPurchaseId == "b2158121-7af9-49d4-9561-1f588205523e")
    #expect(token.tokenCreationDate == Timestamp(milliseconds: 1_698_148_950_000))
    #expect(token.appAppleId == 55555)
    #expect(token.bundleId == "com.example")
    #expect(body.environment == .production)
  }

  @Test func externalPurchaseTokenIsSandboxWithSandboxPrefix() throws {
    let body = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: SharedFixtures.model("signedExternalPurchaseTokenSandboxNotification.json"))
    #expect(body.externalPurchaseToken?.externalPurchaseId?.hasPrefix("SANDBOX") == true)
    #expect(body.environment == .sandbox)
  }

  @Test func rescindConsentNotification() throws {
    let body = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: SharedFixtures.model("signedRescindConsentNotification.json"))
    #expect(body.notificationType == .rescindConsent)
    let appData = try #require(body.appData)
    #expect(appData.appAppleId == 41234)
    #expect(appData.bundleId == "com.example")
    #expect(appData.environment == .localTesting)
    #expect(appData.signedAppTransactionInfo == "signed_app_transaction_info_value")
    #expect(body.bundleId == "com.example" && body.environment == .localTesting)
  }

  @Test func appData() throws {
    let appData = try decoder.decode(AppData.self, from: SharedFixtures.model("appData.json"))
    #expect(appData.appAppleId == 987_654_321)
    #expect(appData.bundleId == "com.example")
    #expect(appData.environment == .sandbox)
    #expect(appData.signedAppTransactionInfo == "signed-app-transaction-info")
  }

  @Test func transaction() throws {
    let transaction = try decoder.decode(
      JWSTransactionDecodedPayload.self, from: SharedFixtures.model("signedTransaction.json"))
    #expect(transaction.originalTransactionId == "12345")
    #expect(transaction.transactionId == "23456")
    #expect(transaction.webOrderLineItemId == "34343")
    #expect(transaction.bundleId == "com.example")
    #expect(transaction.productId == "com.example.product")
    #expect(transaction.subscriptionGroupIdentifier == "55555")
    #expect(transaction.originalPurchaseDate == Timestamp(milliseconds: 1_698_148_800_000))
    #expect(transaction.purchaseDate == Timestamp(milliseconds: 1_698_148_900_000))
    #expect(transaction.expiresDate == Timestamp(milliseconds: 1_698_149_000_000))
    #expect(transaction.revocationDate == Timestamp(milliseconds: 1_698_148_950_000))
    #expect(transaction.revocationReason == .appIssue)
    #expect(transaction.isUpgraded == true)
    #expect(transaction.quantity == 1)
    #expect(transaction.type == .autoRenewableSubscription)
    #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    #expect(transaction.inAppOwnershipType == .purchased)
    #expect(transaction.signedDate == Timestamp(milliseconds: 1_698_148_900_000))
    #expect(transaction.offerType == .introductory)
    #expect(transaction.offerIdentifier == "abc.123")
    #expect(transaction.price == 10990)
    #expect(transaction.currency == "USD")
    #expect(transaction.offerDiscountType == .payAsYouGo)
    #expect(transaction.appTransactionId == "71134")
    #expect(transaction.offerPeriod == "P1Y")
    #expect(transaction.storefront == "USA")
    #expect(transaction.storefrontId == "143441")
    #expect(transaction.transactionReason == .purchase)
    #expect(transaction.environment == .localTesting)
    #expect(transaction.billingPlanType == .monthly)
    #expect(transaction.commitmentInfo?.billingPeriodNumber == 3)
    #expect(transaction.commitmentInfo?.commitmentExpiresDate?.milliseconds == 1_698_150_000_000)
    #expect(transaction.commitmentInfo?.commitmentPrice == 119_880)
    #expect(transaction.commitmentInfo?.totalBillingPeriods == 12)
    let commerce = try #require(transaction.advancedCommerceInfo)
    #expect(commerce.estimatedTax == 1500)
    #expect(commerce.descriptors?.displayName == "Premium")
    #expect(commerce.descriptors?.description == "Premium Plan")
    #expect(commerce.period == "P1M")
    #expect(commerce.requestReferenceId == "ref-12345")
    #expect(commerce.taxCode == "TAX_CODE_1")
    #expect(commerce.taxExclusivePrice == 8490)
    #expect(commerce.taxRate == "0.15")
    let item = try #require(commerce.items?.first)
    #expect(item.sku == "com.example.sku.premium")
    #expect(item.price == 9990)
    #expect(item.revocationDate?.milliseconds == 1_698_149_200_000)
    let refund = try #require(item.refunds?.first)
    #expect(refund.refundAmount == 5000)
    #expect(refund.refundDate?.milliseconds == 1_698_149_100_000)
    #expect(refund.refundReason == "FULFILLMENT_ISSUE")
    #expect(refund.refundType == .prorated)
  }

  @Test func transactionWithRevocation() throws {
    let transaction = try decoder.decode(
      JWSTransactionDecodedPayload.self,
      from: SharedFixtures.model("signedTransactionWithRevocation.json"))
    #expect(transaction.revocationType == .refundProrated)
    #expect(transaction.revocationPercentage == 50000)
    #expect(transaction.advancedCommerceInfo == nil)
    #expect(transaction.transactionId == "23456")
  }

  @Test func renewalInfo() throws {
    let renewal = try decoder.decode(
      JWSRenewalInfoDecodedPayload.self, from: SharedFixtures.model("signedRenewalInfo.json"))
    #expect(renewal.expirationIntent == .customerCancelled)
    #expect(renewal.originalTransactionId == "12345")
    #expect(renewal.autoRenewProductId == "com.example.product.2")
    #expect(renewal.productId == "com.example.product")
    #expect(renewal.autoRenewStatus == .on)
    #expect(renewal.isInBillingRetryPeriod == true)
    #expect(renewal.priceIncreaseStatus == .notResponded)
    #expect(renewal.gracePeriodExpiresDate?.milliseconds == 1_698_148_900_000)
    #expect(renewal.offerType == .promotional)
    #expect(renewal.offerIdentifier == "abc.123")
    #expect(renewal.signedDate?.milliseconds == 1_698_148_800_000)
    #expect(renewal.environment == .localTesting)
    #expect(renewal.recentSubscriptionStartDate?.milliseconds == 1_698_148_800_000)
    #expect(renewal.renewalDate?.milliseconds == 1_698_148_850_000)
    #expect(renewal.renewalPrice == 9990)
    #expect(renewal.currency == "USD")
    #expect(renewal.offerDiscountType == .payAsYouGo)
    #expect(renewal.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
    #expect(renewal.appTransactionId == "71134")
    #expect(renewal.offerPeriod == "P1Y")
    #expect(renewal.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    #expect(renewal.renewalBillingPlanType == .monthly)
    #expect(
      renewal.commitmentInfo?.commitmentAutoRenewProductId == "com.example.product.commitment")
    #expect(renewal.commitmentInfo?.commitmentAutoRenewStatus == .on)
    #expect(renewal.commitmentInfo?.commitmentRenewalBillingPlanType == .monthly)
    #expect(renewal.commitmentInfo?.commitmentRenewalDate?.milliseconds == 1_698_149_500_000)
    #expect(renewal.commitmentInfo?.commitmentRenewalPrice == 9990)
    let commerce = try #require(renewal.advancedCommerceInfo)
    #expect(commerce.consistencyToken == "token-abc-123")
    let increase = try #require(commerce.items?.first?.priceIncreaseInfo)
    #expect(increase.dependentSKUs == ["com.example.sku.1", "com.example.sku.2"])
    #expect(increase.price == 12990)
    #expect(increase.status == .pending)
  }

  @Test func appTransaction() throws {
    let app = try decoder.decode(
      JWSAppTransactionDecodedPayload.self, from: SharedFixtures.model("appTransaction.json"))
    #expect(app.receiptType == .localTesting)
    #expect(app.appAppleId == 531412)
    #expect(app.bundleId == "com.example")
    #expect(app.applicationVersion == "1.2.3")
    #expect(app.versionExternalIdentifier == 512)
    #expect(app.receiptCreationDate?.milliseconds == 1_698_148_900_000)
    #expect(app.originalPurchaseDate?.milliseconds == 1_698_148_800_000)
    #expect(app.originalApplicationVersion == "1.1.2")
    #expect(app.deviceVerification == "device_verification_value")
    #expect(app.deviceVerificationNonce == "48ccfa42-7431-4f22-9908-7e88983e105a")
    #expect(app.preorderDate?.milliseconds == 1_698_148_700_000)
    #expect(app.appTransactionId == "71134")
    #expect(app.originalPlatform == .iOS)
  }

  @Test func realtimeRequest() throws {
    let request = try decoder.decode(
      DecodedRealtimeRequestBody.self, from: SharedFixtures.model("decodedRealtimeRequest.json"))
    #expect(request.originalTransactionId == "99371282")
    #expect(request.appAppleId == 531412)
    #expect(request.productId == "com.example.product")
    #expect(request.userLocale == "en-US")
    #expect(request.requestIdentifier == "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9")
    #expect(request.environment == .localTesting)
    #expect(request.signedDate?.milliseconds == 1_698_148_900_000)
  }
}
