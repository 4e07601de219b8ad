import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The calls that make the App Store do something: a test notification, a renewal extension.
@Suite struct ServerAPIRequestTests {
  typealias H = SimulatorHarness
  typealias F = LedgerFixtures

  @Test func aTestNotificationIsSentAndItsStatusReported() async throws {
    let store = H.store()
    try await NotificationDeliveryTests.Webhook(failures: 0).run { url in
      try await H.withClient(store) { client, _ in
        let token = try await client.requestTestNotification()
        let early = await #expect(throws: AppStoreAPIError.self) {
          try await client.testNotificationStatus(token)
        }
        #expect(early?.apiErrorCode == .testNotificationNotFound && early?.httpStatus == 404)
        await NotificationDeliverer(store: store, webhookURL: url, logger: H.logger)
          .deliverPending()
        let status = try await client.testNotificationStatus(token)
        #expect(status.notification.payload.notificationType == .test)
        #expect(status.notification.payload.subtype == nil)
        #expect(status.notification.payload.data?.bundleId == H.bundleId)
        #expect(status.sendAttempts.map(\.sendAttemptResult) == [.success])
        let bad = await #expect(throws: AppStoreAPIError.self) {
          try await client.testNotificationStatus("no-separator")
        }
        #expect(bad?.apiErrorCode == .invalidTestNotificationToken)
      }
    }
    try await H.withClient(store, hasNotificationURL: false) { client, _ in
      let error = await #expect(throws: AppStoreAPIError.self) {
        try await client.requestTestNotification()
      }
      #expect(error?.apiErrorCode == .serverNotificationURLNotFound)
    }
  }

  /// A store at day 400 with an active subscription, an expired one and a family-shared one.
  static func storeWithSubscriptions() -> SimulatedAppStore {
    let store = H.store()
    let subscriptions = [
      ("2000000000000100", 390.0, InAppOwnershipType.purchased),
      ("2000000000000200", 300.0, .purchased), ("2000000000000300", 390.0, .familyShared),
    ]
    for (id, purchased, ownership) in subscriptions {
      var transaction = F.transaction(
        id, purchased: purchased, expires: purchased + 30, ownership: ownership)
      transaction.webOrderLineItemId = id + "9"
      store.put(transaction, customer: "customer-\(id)")
    }
    return store
  }

  @Test func aRenewalExtensionMovesTheExpiryOnceAndNotifies() async throws {
    let store = Self.storeWithSubscriptions()
    try await H.withClient(store) { client, _ in
      let first = try await client.extendRenewalDate(
        "2000000000000100",
        ExtendRenewalDateRequest(extendByDays: 10, extendReasonCode: 3, requestIdentifier: "r-1"))
      #expect(first.success == true && first.effectiveDate == F.t(430))
      #expect(first.webOrderLineItemId == "20000000000001009")
      let again = try await client.extendRenewalDate(
        "2000000000000100",
        ExtendRenewalDateRequest(extendByDays: 10, extendReasonCode: 3, requestIdentifier: "r-1"))
      #expect(again == first)
      #expect(store.transaction("2000000000000100")?.expiresDate == F.t(430))
      #expect(store.notifications().map(\.type) == [.renewalExtended])
      let info = try await client.transactionInfo("2000000000000100")
      #expect(info.payload.expiresDate == F.t(430))

      _ = try await client.extendRenewalDate(
        "2000000000000100",
        ExtendRenewalDateRequest(extendByDays: 5, extendReasonCode: 1, requestIdentifier: "r-2"))
      let third = await #expect(throws: AppStoreAPIError.self) {
        try await client.extendRenewalDate(
          "2000000000000100",
          ExtendRenewalDateRequest(extendByDays: 5, extendReasonCode: 1, requestIdentifier: "r-3"))
      }
      #expect(third?.apiErrorCode == .subscriptionMaxExtension && third?.httpStatus == 403)
    }
  }

  @Test(arguments: [
    (
      "2000000000000100",
      ExtendRenewalDateRequest(extendByDays: 91, extendReasonCode: 0, requestIdentifier: "a"),
      APIErrorCode.invalidExtendByDays
    ),
    (
      "2000000000000100",
      ExtendRenewalDateRequest(extendByDays: 9, extendReasonCode: 7, requestIdentifier: "b"),
      .invalidExtendReasonCode
    ),
    (
      "2000000000000100",
      ExtendRenewalDateRequest(extendByDays: 9, extendReasonCode: 0, requestIdentifier: ""),
      .invalidRequestIdentifier
    ),
    (
      "2000000000000200",
      ExtendRenewalDateRequest(extendByDays: 9, extendReasonCode: 0, requestIdentifier: "c"),
      .subscriptionExtensionIneligible
    ),
    (
      "2000000000000300",
      ExtendRenewalDateRequest(extendByDays: 9, extendReasonCode: 0, requestIdentifier: "d"),
      .familySharedSubscriptionExtensionIneligible
    ),
    (
      "2000000000000999",
      ExtendRenewalDateRequest(extendByDays: 9, extendReasonCode: 0, requestIdentifier: "e"),
      .originalTransactionIdNotFound
    ),
  ])
  func extensionsAppleRefusesAreRefusedWithItsCode(
    id: String, request: ExtendRenewalDateRequest, code: APIErrorCode
  ) async throws {
    let store = Self.storeWithSubscriptions()
    try await H.withClient(store) { client, _ in
      let error = await #expect(throws: AppStoreAPIError.self) {
        try await client.extendRenewalDate(id, request)
      }
      #expect(error?.apiErrorCode == code)
      #expect(store.notifications().isEmpty)
    }
  }
}
