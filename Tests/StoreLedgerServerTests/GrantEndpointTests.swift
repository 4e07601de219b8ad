import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// Grants over HTTP on PostgreSQL: one grant given, seen in the entitlements as E7, listed and
/// ended; a bulk grant to everyone who entered billing retry, idempotent by its key; bad
/// grants refused with nothing stored.
@Suite(.serialized) struct GrantEndpointTests {
  typealias H = ServerHarness
  typealias L = AccountListEndpointTests

  @Test func grantListEndAndBulk() async throws {
    try await H.withServer { client, database in
      try await L.notifyAll(client)
      let token = L.expired
      let created = try await client.execute(
        uri: "/v1/accounts/\(token)/grants", method: .post, headers: H.authorized,
        body: H.json(["entitlement": "pro", "days": 30, "reason": "outage on Nov 20"]))
      #expect(created.status == .created)
      let grant = try H.value(created)
      let grantId = try #require(grant["grantId"]?.string)
      #expect(grant["state"] == .string("active") && grant["entitlement"] == .string("pro"))
      #expect(grant["grantedBy"]?.string?.isEmpty == false)

      let entitlements = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(token)/entitlements", method: .get, headers: H.authorized))
      let pro = entitlements["entitlements"]?.array?.first { $0["entitlement"] == .string("pro") }
      #expect(pro?["active"] == .bool(true) && pro?["rule"] == .string("E7"))
      #expect(pro?["source"] == .string("grant:\(grantId)"))

      let ended = try await client.execute(
        uri: "/v1/accounts/\(token)/grants/\(grantId)/end", method: .post, headers: H.authorized,
        body: H.json(["reason": "resolved"]))
      #expect(ended.status == .ok)
      #expect(try H.value(ended)["state"] == .string("ended"))
      let listed = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(token)/grants", method: .get, headers: H.authorized))
      #expect(listed["grants"]?.array?.count == 1)

      // Everyone who entered billing retry: one account here, granted once however often asked.
      let bulk: [String: Any] = [
        "enteredStatus": [
          "status": "billing_retry", "from": "2020-01-01T00:00:00Z",
          "before": "2100-01-01T00:00:00Z",
        ], "entitlement": "pro", "days": 7, "reason": "outage", "idempotencyKey": "outage-1",
      ]
      let first = try H.value(
        try await client.execute(
          uri: "/v1/grants", method: .post, headers: H.authorized, body: H.json(bulk)))
      #expect(first["granted"]?.array?.compactMap { $0["appAccountToken"]?.string } == [L.retry])
      let rows = try await database.eventCount()
      let again = try H.value(
        try await client.execute(
          uri: "/v1/grants", method: .post, headers: H.authorized, body: H.json(bulk)))
      #expect(again["granted"]?.array?.isEmpty == true)
      #expect(again["alreadyGranted"]?.array?.count == 1)
      #expect(try await database.eventCount() == rows)

      // Refusals: nothing stored. None is a conflict with what the ledger holds: a name the
      // catalog does not know and a period that ends before it starts fit the document and
      // are 422; a body the document does not allow is a bad request.
      let refusals: [([String: Any], HTTPResponse.Status)] = [
        (["entitlement": "platinum", "reason": "r"], .unprocessableContent),
        (
          [
            "entitlement": "pro", "reason": "r", "startsAt": "2026-12-01T00:00:00Z",
            "endsAt": "2026-11-01T00:00:00Z",
          ], .unprocessableContent
        ),
        (["entitlement": "pro", "reason": " "], .badRequest),
        (
          ["entitlement": "pro", "reason": "r", "days": 3, "endsAt": "2026-12-01T00:00:00Z"],
          .badRequest
        ),
      ]
      for (body, status) in refusals {
        let refused = try await client.execute(
          uri: "/v1/accounts/\(token)/grants", method: .post, headers: H.authorized,
          body: H.json(body))
        #expect(refused.status == status, "\(body)")
      }
      let unknown = try await client.execute(
        uri: "/v1/accounts/\(token)/grants/\(UUID().uuidString)/end", method: .post,
        headers: H.authorized, body: H.json(["reason": "r"]))
      #expect(unknown.status == .notFound)
      #expect(try await database.eventCount() == rows)
    }
  }
}
