import AppStoreServerAPI
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// App Store Server API response bodies from Apple's test data decode to the listed values.
@Suite struct ServerAPIModelTests {
  let decoder = JSONDecoder()

  func decode<T: Decodable>(_ type: T.Type, _ file: String) throws -> T {
    try decoder.decode(type, from: SharedFixtures.model(file))
  }

  @Test func allSubscriptionStatuses() throws {
    let response = try decode(StatusResponse.self, "getAllSubscriptionStatusesResponse.json")
    #expect(response.environment == .localTesting)
    #expect(response.bundleId == "com.example")
    #expect(response.appAppleId == 5_454_545)
    let groups = try #require(response.data)
    #expect(groups.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
    let first = try #require(groups[0].lastTransactions)
    #expect(first.map(\.originalTransactionId) == ["3749183", "5314314134"])
    #expect(first.map(\.status) == [.active, .revoked])
    #expect(first[0].signedTransactionInfo == "signed_transaction_one")
    #expect(first[0].signedRenewalInfo == "signed_renewal_one")
    #expect(groups[1].lastTransactions?.first?.originalTransactionId == "3413453")
    #expect(groups[1].lastTransactions?.first?.status == .expired)
  }

  @Test func transactionHistory() throws {
    let response = try decode(HistoryResponse.self, "transactionHistoryResponse.json")
    #expect(response.revision == "revision_output")
    #expect(response.hasMore == true)
    #expect(response.bundleId == "com.example")
    #expect(response.appAppleId == 323_232)
    #expect(response.environment == .localTesting)
    #expect(
      response.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
  }

  @Test func transactionHistoryWithAnUnknownEnvironmentStillDecodes() throws {
    let response = try decode(
      HistoryResponse.self, "transactionHistoryResponseWithMalformedEnvironment.json")
    #expect(response.environment?.rawValue == "LocalTestingxxx")
    #expect(response.environment?.isKnown == false)
  }

  @Test func transactionHistoryWithAMalformedAppAppleIdFails() {
    #expect(throws: DecodingError.self) {
      try decode(HistoryResponse.self, "transactionHistoryResponseWithMalformedAppAppleId.json")
    }
  }

  @Test func transactionAndAppTransactionInfo() throws {
    #expect(
      try decode(TransactionInfoResponse.self, "transactionInfoResponse.json").signedTransactionInfo
        == "signed_transaction_info_value")
    #expect(
      try decode(AppTransactionInfoResponse.self, "appTransactionInfoResponse.json")
        .signedAppTransactionInfo == "signed_app_transaction_info_value")
  }

  @Test func refundHistory() throws {
    let response = try decode(RefundHistoryResponse.self, "getRefundHistoryResponse.json")
    #expect(response.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
    #expect(response.revision == "revision_output")
    #expect(response.hasMore == true)
  }

  @Test func orderLookup() throws {
    let response = try decode(OrderLookupResponse.self, "lookupOrderIdResponse.json")
    #expect(response.status == .invalid)
    #expect(response.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
  }

  @Test func notificationHistory() throws {
    let response = try decode(
      NotificationHistoryResponse.self, "getNotificationHistoryResponse.json")
    #expect(response.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
    #expect(response.hasMore == true)
    let items = try #require(response.notificationHistory)
    #expect(items.map(\.signedPayload) == ["signed_payload_one", "signed_payload_two"])
    #expect(items[0].sendAttempts?.map(\.sendAttemptResult) == [.noResponse, .success])
    #expect(
      items[0].sendAttempts?.map(\.attemptDate?.milliseconds) == [
        1_698_148_900_000, 1_698_148_950_000,
      ])
    #expect(items[1].sendAttempts?.first?.sendAttemptResult == .circularRedirect)
  }

  @Test func testNotificationStatusAndRequest() throws {
    let status = try decode(
      CheckTestNotificationResponse.self, "getTestNotificationStatusResponse.json")
    #expect(status.signedPayload == "signed_payload")
    #expect(status.sendAttempts?.map(\.sendAttemptResult) == [.noResponse, .success])
    let request = try decode(
      SendTestNotificationResponse.self, "requestTestNotificationResponse.json")
    #expect(request.testNotificationToken == "ce3af791-365e-4c60-841b-1674b43c1609")
  }

  @Test func renewalDateExtensions() throws {
    let single = try decode(
      ExtendRenewalDateResponse.self, "extendSubscriptionRenewalDateResponse.json")
    #expect(single.originalTransactionId == "2312412")
    #expect(single.webOrderLineItemId == "9993")
    #expect(single.success == true)
    #expect(single.effectiveDate?.milliseconds == 1_698_148_900_000)
    let mass = try decode(
      MassExtendRenewalDateResponse.self, "extendRenewalDateForAllActiveSubscribersResponse.json")
    #expect(mass.requestIdentifier == "758883e8-151b-47b7-abd0-60c4d804c2f5")
    let status = try decode(
      MassExtendRenewalDateStatusResponse.self,
      "getStatusOfSubscriptionRenewalDateExtensionsResponse.json")
    #expect(status.requestIdentifier == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
    #expect(status.complete == true)
    #expect(status.completeDate?.milliseconds == 1_698_148_900_000)
    #expect(status.succeededCount == 30)
    #expect(status.failedCount == 2)
  }

  @Test(arguments: [
    ("apiException.json", Int64(5_000_000), true),
    ("apiTooManyRequestsException.json", 4_290_000, true),
    ("appTransactionDoesNotExistError.json", 4_040_019, false),
    ("familyTransactionNotSupportedError.json", 4_000_185, false),
    ("invalidAppAccountTokenUUIDError.json", 4_000_183, false),
    ("invalidTransactionIdError.json", 4_000_006, false),
    ("transactionIdNotFoundError.json", 4_040_010, false),
    ("transactionIdNotOriginalTransactionId.json", 4_000_187, false),
  ])
  func knownErrorBodies(file: String, code: Int64, retryable: Bool) throws {
    let body = try decode(APIErrorResponse.self, file)
    #expect(body.errorCode?.rawValue == code)
    #expect(body.errorCode?.isKnown == true)
    #expect(body.errorCode?.isRetryable == retryable)
    #expect(body.errorMessage?.isEmpty == false)
  }

  @Test func unknownErrorCodeKeepsItsRawValue() throws {
    let body = try decode(APIErrorResponse.self, "apiUnknownError.json")
    #expect(body.errorCode?.rawValue == 9_990_000)
    #expect(body.errorCode?.isKnown == false)
    #expect(body.errorMessage == "Testing error.")
  }
}
