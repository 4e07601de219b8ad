import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// The refund-request endpoints over HTTP on a real database: a CONSUMPTION_REQUEST through
/// the webhook is listed and shown; bad input and missing credentials answer clearly; the
/// counts are on `/metrics`; the OpenAPI document describes the endpoints.
@Suite struct ConsumptionEndpointTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures

  @Test func aRequestThroughTheWebhookIsListedShownAndCounted() async throws {
    try await H.withInProcessServer { client, _ in
      let asked = try H.signed.notification(
        .consumptionRequest, uuid: "0c0ffee0-0000-4000-8000-000000000001",
        transaction: F.transaction(
          "8100", product: "gems.100", type: .consumable, purchased: 1, token: F.account(9)))
      let stored = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(asked))
      #expect(stored.status == .ok)
      let list = try await client.execute(
        uri: "/v1/consumption-requests?state=open", method: .get, headers: H.authorized)
      #expect(list.status == .ok)
      let listing = try H.value(list)
      #expect(listing["metrics"]?["pending"] == .number(1))
      #expect(listing["requests"]?.array?.first?["transactionId"] == .string("8100"))
      let answered = try await client.execute(
        uri: "/v1/consumption-requests?state=answered", method: .get, headers: H.authorized)
      #expect(try H.value(answered)["requests"] == .array([]))
      let shown = try await client.execute(
        uri: "/v1/consumption-requests/0C0FFEE0-0000-4000-8000-000000000001", method: .get,
        headers: H.authorized)
      #expect(try H.value(shown)["state"] == .string("pending"))
      #expect(
        try H.value(shown)["events"]?.array?.first?["eventType"]
          == .string("ledger.consumption_requested.v1"))

      let badState = try await client.execute(
        uri: "/v1/consumption-requests?state=done", method: .get, headers: H.authorized)
      #expect(badState.status == .badRequest)
      #expect(try H.errorCode(badState) == "invalid_request")
      let unknown = try await client.execute(
        uri: "/v1/consumption-requests/123", method: .get, headers: H.authorized)
      #expect(unknown.status == .notFound)
      let noCredentials = try await client.execute(
        uri: "/v1/consumption-requests/8100/answer", method: .post, headers: H.authorized)
      #expect(noCredentials.status == .notImplemented)
      #expect(try H.errorCode(noCredentials) == "not_configured")
      let badPolicy = try await client.execute(
        uri: "/v1/consumption-requests/dry-run", method: .post, headers: H.authorized,
        body: H.json(["customerConsented": true, "decline": 50]))
      #expect(badPolicy.status == .badRequest)
      #expect(try H.errorCode(badPolicy) == "invalid_body")
      let dryRun = try await client.execute(
        uri: "/v1/consumption-requests/dry-run", method: .post, headers: H.authorized,
        body: H.json(["customerConsented": true]))
      #expect(
        try H.value(dryRun)["requests"]?.array?.first?["wouldSend"]?["refundPreference"]
          == .string("GRANT_FULL"))
      let unauthorized = try await client.execute(uri: "/v1/consumption-requests", method: .get)
      #expect(unauthorized.status == .unauthorized)

      let metrics = try await client.execute(uri: "/metrics", method: .get)
      let text = String(buffer: metrics.body)
      #expect(text.contains(#"storeledger_consumption_requests{state="pending"} 1"#))
      let openAPI = try H.value(try await client.execute(uri: "/openapi.json", method: .get))
      for path in [
        "/v1/consumption-requests", "/v1/consumption-requests/{id}",
        "/v1/consumption-requests/{id}/answer", "/v1/consumption-requests/dry-run",
        "/v1/orders/{orderId}", "/v1/extensions", "/v1/extensions/{productId}/{requestIdentifier}",
        "/v1/receipts", "/v1/accounts/{token}/offers",
        "/v1/accounts/{token}/offers/{offerId}/signature",
      ] {
        #expect(openAPI["paths"]?[path] != nil, "\(path)")
      }
    }
  }
}
