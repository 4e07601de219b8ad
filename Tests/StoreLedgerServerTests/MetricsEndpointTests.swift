import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// `GET /v1/metrics` and `/v1/metrics/diff` answer from signed notifications sent through
/// the webhook, and refuse a question that cannot be answered with a code that names it.
@Suite struct MetricsEndpointTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  /// A monthly subscription bought on January 1, renewed on February 1 and refunded on
  /// February 10, in US dollars.
  static func send(_ client: some TestClientProtocol) async throws {
    func transaction(
      _ id: String, _ purchased: Double, _ expires: Double, signed: Double? = nil,
      revoked: Double? = nil
    ) -> JWSTransactionDecodedPayload {
      var payload = F.transaction(
        id, original: "9100", purchased: purchased, expires: expires, signed: signed,
        token: F.account(91), revoked: revoked)
      payload.price = 9_990
      payload.currency = "USD"
      payload.storefront = "USA"
      return payload
    }
    let steps: [(NotificationType, JWSTransactionDecodedPayload, Double)] = [
      (.subscribed, transaction("9100", 0, 31), 0),
      (.didRenew, transaction("9101", 31, 59), 31),
      (.refund, transaction("9101", 31, 59, signed: 40, revoked: 40), 40),
    ]
    for (index, step) in steps.enumerated() {
      let response = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            step.0, uuid: "d5000000-0000-4000-8000-00000000000\(index)", transaction: step.1,
            renewal: F.renewal("9100", signed: step.2))))
      #expect(response.status == .ok)
    }
  }

  @Test func monthsOfASubscriptionWithARefund() async throws {
    try await H.withInProcessServer { client, _ in
      try await Self.send(client)
      let answer = try H.value(
        try await client.execute(
          uri: "/v1/metrics?from=2026-01-01&to=2026-03-01&by=month&group=product",
          method: .get, headers: H.authorized))
      let rows = answer["rows"]?.array ?? []
      #expect(rows.count == 2)
      let january = rows.first?["figures"]
      #expect(january?["activeSubscriptions"] == .number(1))
      #expect(january?["mrr"] == .number(9_990))
      #expect(january?["newSubscriptions"] == .number(1))
      #expect(january?["grossRevenue"] == .number(9_990))
      #expect(january?["estimatedProceeds"] == .number(6_993))
      #expect(rows.first?["group"]?["product"] == .string("pro.monthly"))
      let february = rows.last?["figures"]
      #expect(february?["activeSubscriptions"] == .number(0))
      #expect(february?["refunds"] == .number(1))
      #expect(february?["refundAmount"] == .number(9_990))
      #expect(february?["churnRefund"] == .number(1))
      #expect(february?["netRevenue"] == .number(0))
      #expect(answer["estimated"] == .bool(true))
      #expect(answer["definition"] == .string("storeledger"))
      #expect(january?["inGrace"] == .number(0) && january?["inBillingRetry"] == .number(0))

      let peer = try H.value(
        try await client.execute(
          uri: "/v1/metrics?from=2026-01-01&to=2026-03-01&by=month&definition=revenuecat",
          method: .get, headers: H.authorized))
      #expect(peer["definition"] == .string("revenuecat"))
      let unknown = try await client.execute(
        uri: "/v1/metrics?from=2026-01-01&to=2026-03-01&definition=chartmogul", method: .get,
        headers: H.authorized)
      #expect(unknown.status == .badRequest)

      let instant = try H.value(
        try await client.execute(
          uri: "/v1/metrics?at=2026-01-15", method: .get, headers: H.authorized))
      #expect(instant["by"] == .string("instant"))
      #expect(instant["rows"]?.array?.first?["figures"]?["activeSubscriptions"] == .number(1))

      let converted = try H.value(
        try await client.execute(
          uri: "/v1/metrics?from=2026-01-01&to=2026-02-01&by=month&currency=EUR&rates=USD=0.5",
          method: .get, headers: H.authorized))
      #expect(converted["reporting"]?["currency"] == .string("EUR"))
      #expect(
        converted["reporting"]?["rows"]?.array?.first?["figures"]?["grossRevenue"]
          == .number(4_995))

      // Everything recorded now against nothing recorded before the test began.
      let diff = try H.value(
        try await client.execute(
          uri: "/v1/metrics/diff?from=2026-02-01&to=2026-03-01&by=month&before=2000-01-01",
          method: .get, headers: H.authorized))
      let changes = diff["changes"]?.array ?? []
      #expect(changes.contains { $0["figure"] == .string("refunds") && $0["after"] == .number(1) })
      let events = diff["causes"]?.array?.first?["events"]?.array ?? []
      #expect(events.count == 3)
      #expect(diff["causes"]?.array?.first?["originalTransactionId"] == .string("9100"))
    }
  }

  @Test func questionsThatCannotBeAnsweredAreRefusedByName() async throws {
    try await H.withInProcessServer { client, _ in
      try await Self.send(client)
      let cases: [(String, HTTPResponse.Status, String)] = [
        ("from=2026-03-01&to=2026-01-01", .unprocessableContent, "range_reversed"),
        ("from=2000-01-01&to=2026-01-01&by=day", .unprocessableContent, "range_too_long"),
        ("from=2026-01-01&to=2026-02-01&group=colour", .badRequest, "invalid_request"),
        (
          "from=2026-01-01&to=2026-02-01&currency=EUR&rates=GBP=1.1", .unprocessableContent,
          "rate_missing"
        ),
        (
          "from=2026-01-01&to=2026-02-01&currency=EUR&rates=EUX=1.1", .unprocessableContent,
          "unknown_currency"
        ),
        // The document's Instant pattern knows the calendar: a day that does not exist does not
        // fit it.
        ("from=2026-02-30&to=2026-03-01", .badRequest, "invalid_request"),
        ("from=yesterday&to=2026-02-01", .badRequest, "invalid_request"),
        ("to=2026-02-01", .unprocessableContent, "invalid_request"),
        ("from=2026-01-01&to=2026-02-01&rates=USD=1", .unprocessableContent, "invalid_request"),
      ]
      for (query, status, code) in cases {
        let response = try await client.execute(
          uri: "/v1/metrics?\(query)", method: .get, headers: H.authorized)
        #expect(response.status == status, "\(query)")
        #expect(try H.errorCode(response) == code, "\(query)")
      }
      let unauthorized = try await client.execute(
        uri: "/v1/metrics?from=2026-01-01&to=2026-02-01", method: .get)
      #expect(unauthorized.status == .unauthorized)
    }
  }
}
