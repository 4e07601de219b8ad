import Foundation
import HTTPTypes
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// A customer's whole life told through the HTTP API, answers checked after each step.
@Suite struct WebhookLifecycleTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  @Test func subscriptionLifecycleThroughTheWebhook() async throws {
    try await H.withInProcessServer { client, _ in
      let steps: [(String, () throws -> String, Double, Bool, Int32)] = [
        (
          "subscribe",
          {
            try H.signed.notification(
              .subscribed, .initialBuy, uuid: "l-1",
              transaction: F.transaction("5000", purchased: 0, expires: 30))
          },
          1, true, 1
        ),
        (
          "renew",
          {
            try H.signed.notification(
              .didRenew, uuid: "l-2",
              transaction: F.transaction("5001", original: "5000", purchased: 30, expires: 60))
          },
          45, true, 1
        ),
        (
          "billing failure with grace",
          {
            try H.signed.notification(
              .didFailToRenew, .gracePeriod, uuid: "l-3",
              transaction: F.transaction("5001", original: "5000", purchased: 30, expires: 60),
              renewal: F.renewal("5000", signed: 60, retry: true, grace: 66), signed: F.t(60))
          },
          62, true, 4
        ),
        (
          "recovery",
          {
            try H.signed.notification(
              .didRenew, .billingRecovery, uuid: "l-4",
              transaction: F.transaction("5002", original: "5000", purchased: 63, expires: 93))
          },
          70, true, 1
        ),
        (
          "refund",
          {
            try H.signed.notification(
              .refund, uuid: "l-5",
              transaction: F.transaction(
                "5002", original: "5000", purchased: 63, expires: 93, signed: 75, revoked: 75))
          },
          76, false, 5
        ),
        (
          "reversal",
          {
            try H.signed.notification(
              .refundReversed, uuid: "l-6",
              transaction: F.transaction(
                "5002", original: "5000", purchased: 63, expires: 93, signed: 80))
          },
          81, true, 1
        ),
      ]
      for (step, payload, day, entitled, status) in steps {
        let posted = try await client.execute(
          uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(try payload()))
        #expect(posted.status == .ok, "\(step)")
        let at = F.t(day).date.formatted(.iso8601)
        let entitlements = try H.value(
          try await client.execute(
            uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/entitlements?at=\(at)",
            method: .get, headers: H.authorized))
        let pro = entitlements["entitlements"]?.array?.first
        #expect(pro?["entitlement"] == .string("pro"), "\(step)")
        #expect(pro?["active"] == .bool(entitled), "\(step)")
        let subscriptions = try H.value(
          try await client.execute(
            uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/subscriptions?at=\(at)",
            method: .get, headers: H.authorized))
        #expect(
          subscriptions["subscriptions"]?.array?.first?["status"] == .number(Double(status)),
          "\(step)")
      }
      let history = try H.value(
        try await client.execute(
          uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/events", method: .get,
          headers: H.authorized))
      #expect(history["events"]?.array?.count == steps.count)
      #expect(history["events"]?.array?.allSatisfy { $0["signed"] != nil } == true)
    }
  }

  @Test func consumableBoughtDebitedAndRefunded() async throws {
    try await H.withInProcessServer { client, _ in
      let gems = F.transaction("c1", product: "gems.100", type: .consumable, purchased: 0)
      let bought = try await client.execute(
        uri: "/v1/transactions", method: .post, headers: H.authorized,
        body: H.json(["signedTransaction": try H.signed.transaction(gems)]))
      #expect(bought.status == .created)
      var debitHeaders = H.authorized
      debitHeaders[HTTPField.Name("Idempotency-Key")!] = "spend-1"
      for expected in [HTTPResponse.Status.created, .ok] {
        let debit = try await client.execute(
          uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/consumables/gems.100/debits",
          method: .post,
          headers: debitHeaders, body: H.json(["quantity": 30]))
        #expect(debit.status == expected)
      }
      #expect(try await balance(client) == 70)
      debitHeaders[HTTPField.Name("Idempotency-Key")!] = "spend-2"
      let overdraft = try await client.execute(
        uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/consumables/gems.100/debits",
        method: .post,
        headers: debitHeaders, body: H.json(["quantity": 71]))
      #expect(overdraft.status == .conflict)
      #expect(try H.errorCode(overdraft) == "insufficient_balance")
      let refunded = F.transaction(
        "c1", product: "gems.100", type: .consumable, purchased: 0, signed: 10, revoked: 10)
      let refund = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(try H.signed.notification(.refund, uuid: "c-r", transaction: refunded)))
      #expect(refund.status == .ok)
      // Purchased 100, refunded 100, debited 30.
      #expect(try await balance(client) == -30)
    }
  }

  /// The balance now: debits are recorded at the time they are made.
  private func balance(_ client: any TestClientProtocol) async throws -> Double? {
    let balances = try H.value(
      try await client.execute(
        uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/consumables", method: .get,
        headers: H.authorized))
    guard case .number(let balance)? = balances["consumables"]?.array?.first?["balance"] else {
      return nil
    }
    return balance
  }
}
