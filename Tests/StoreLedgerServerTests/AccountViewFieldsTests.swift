import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The account view answers the everyday questions: what they pay and under which offer, why
/// it would expire, whether a price increase waits for the customer, when it renews, and the
/// account's refunds.
@Suite struct AccountViewFieldsTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness
  static let token = "00000000-0000-4000-8000-0000000000f1"

  @Test func subscriptionsTellThePriceIncreaseAndRevocationsTheRefund() async throws {
    try await H.withInProcessServer { client, _ in
      let day = (Date().timeIntervalSince1970 * 1000 - Double(F.epoch)) / 86_400_000
      var renewal = F.renewal("8000", signed: day - 1, autoRenew: .off, intent: .customerCancelled)
      renewal.priceIncreaseStatus = PriceIncreaseStatus(rawValue: 0)
      renewal.renewalDate = F.t(day + 20)
      renewal.renewalPrice = 12_990
      renewal.currency = "EUR"
      var transaction = F.transaction(
        "8000", purchased: day - 10, expires: day + 20, signed: day - 1, token: Self.token)
      transaction.price = 4_990
      transaction.currency = "EUR"
      transaction.offerType = OfferType(rawValue: 1)
      transaction.offerIdentifier = "intro-half"
      transaction.offerDiscountType = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
      transaction.offerPeriod = "P1M"
      transaction.storefront = "DEU"
      let notified = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .priceIncrease, .pending, uuid: "c4000000-0000-4000-8000-000000000001",
            transaction: transaction, renewal: renewal)))
      #expect(notified.status == .ok)
      let gems = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .refund, uuid: "c4000000-0000-4000-8000-000000000002",
            transaction: F.transaction(
              "8100", product: "gems.100", type: .consumable, purchased: day - 5, signed: day - 1,
              token: Self.token, revoked: day - 1, revocationType: .refundProrated,
              percentage: 250))))
      #expect(gems.status == .ok)
      var lifetime = F.transaction(
        "8200", product: "lifetime", type: .nonConsumable, purchased: day - 2, signed: day - 2,
        token: Self.token)
      lifetime.price = 29_990
      lifetime.currency = "EUR"
      lifetime.offerType = OfferType(rawValue: 3)
      lifetime.offerIdentifier = "SPRING"
      let bought = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .oneTimeCharge, uuid: "c4000000-0000-4000-8000-000000000003", transaction: lifetime)))
      #expect(bought.status == .ok)
      let purchases = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/purchases", method: .get, headers: H.authorized))
      let purchase = purchases["purchases"]?.array?.first
      #expect(purchases["purchases"]?.array?.count == 1)
      #expect(purchase?["transactionId"] == .string("8200"))
      #expect(purchase?["price"] == .number(29_990) && purchase?["currency"] == .string("EUR"))
      #expect(
        purchase?["offerType"] == .number(3) && purchase?["offerIdentifier"] == .string("SPRING"))
      #expect(purchase?["environment"] == .string("Sandbox"))

      let subscriptions = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/subscriptions", method: .get, headers: H.authorized))
      let subscription = subscriptions["subscriptions"]?.array?.first
      #expect(subscription?["priceIncreaseStatus"] == .number(0))
      #expect(subscription?["expirationIntent"] == .number(1))
      #expect(subscription?["autoRenewStatus"] == .number(0))
      #expect(subscription?["renewalDate"] == .number(Double(F.t(day + 20).milliseconds)))
      #expect(subscription?["isInBillingRetryPeriod"] == .bool(false))
      // What they pay now, under which offer, what the next period costs, and where.
      #expect(subscription?["environment"] == .string("Sandbox"))
      #expect(subscription?["price"] == .number(4_990))
      #expect(subscription?["currency"] == .string("EUR"))
      #expect(subscription?["offerType"] == .number(1))
      #expect(subscription?["offerIdentifier"] == .string("intro-half"))
      #expect(subscription?["offerDiscountType"] == .string("PAY_AS_YOU_GO"))
      #expect(subscription?["offerPeriod"] == .string("P1M"))
      #expect(subscription?["renewalPrice"] == .number(12_990))
      #expect(subscription?["renewalCurrency"] == .string("EUR"))

      // One environment at a time: this server's data is all Sandbox.
      let production = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/subscriptions?environment=Production", method: .get,
          headers: H.authorized))
      #expect(production["subscriptions"]?.array?.isEmpty == true)
      let sandbox = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/subscriptions?environment=Sandbox", method: .get,
          headers: H.authorized))
      #expect(sandbox["subscriptions"] == subscriptions["subscriptions"])
      let unknown = try await client.execute(
        uri: "/v1/accounts/\(Self.token)/entitlements?environment=Staging", method: .get,
        headers: H.authorized)
      #expect(unknown.status == .badRequest)

      let revocations = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/revocations", method: .get, headers: H.authorized))
      let refund = revocations["revocations"]?.array?.first
      #expect(revocations["revocations"]?.array?.count == 1)
      #expect(refund?["transactionId"] == .string("8100"))
      #expect(refund?["revocationType"] == .string("REFUND_PRORATED"))
      #expect(refund?["revocationPercentage"] == .number(250))
      #expect(refund?["reversed"] == .bool(false))
      let other = try await client.execute(
        uri: "/v1/accounts/00000000-0000-4000-8000-0000000000f2/revocations", method: .get,
        headers: H.authorized)
      #expect(try H.value(other)["revocations"]?.array?.isEmpty == true)

      // The change feed says a price increase waits for the customer, and the refund. The
      // projector may derive the account's changes in more than one pass: wait for both.
      let expected: [JSONValue] = [
        .string("subscription.price_increase_pending"), .string("purchase.refunded"),
      ]
      let page = try H.value(
        try await client.execute(
          uri: "/v1/changes?after=0&wait=10&appAccountToken=\(Self.token)&limit=100",
          method: .get, headers: H.authorized))
      var types = (page["changes"]?.array ?? []).compactMap { $0["type"] }
      let deadline = ContinuousClock.now + .seconds(10)
      while !expected.allSatisfy(types.contains), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(200))
        let again = try H.value(
          try await client.execute(
            uri: "/v1/changes?after=0&appAccountToken=\(Self.token)", method: .get,
            headers: H.authorized))
        types = (again["changes"]?.array ?? []).compactMap { $0["type"] }
      }
      #expect(types.contains(.string("subscription.price_increase_pending")))
      #expect(types.contains(.string("purchase.refunded")))
    }
  }
}
