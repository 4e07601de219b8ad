import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// `/v1/seats`: a group subscription's seats over HTTP, and bad input refused with clear codes
/// and nothing stored (the calls to Apple are tested end to end in SeatLedgerTests).
@Suite struct SeatsEndpointTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures

  static func groupPurchase(seats: Int32 = 4) throws -> String {
    var purchase = F.transaction(
      "6100", purchased: 0, expires: 3650, token: F.account(1), quantity: seats)
    purchase.multiSeatInfo = TransactionMultiSeatInfo(
      invitationManagement: .developer,
      priceTiers: [MultiSeatPriceTier(tierPrice: 9_990, tierQuantity: seats)])
    return try H.signed.transaction(purchase)
  }

  @Test func seatsAreShownAndBadRequestsAreRefusedClearly() async throws {
    try await H.withInProcessServer { client, database in
      let stored = try await client.execute(
        uri: "/v1/transactions", method: .post, headers: H.authorized,
        body: H.json(["signedTransaction": try Self.groupPurchase()]))
      #expect(stored.status == .created)
      let shown = try await client.execute(
        uri: "/v1/seats/6100?at=2026-01-05T00:00:00Z", method: .get, headers: H.authorized)
      #expect(shown.status == .ok)
      let report = try H.value(shown)
      #expect(report["seats"]?["total"] == .number(4))
      #expect(report["seats"]?["invitationManagement"] == .string("DEVELOPER"))
      #expect(report["appAccountToken"] == .string(F.account(1)))
      let subscriptions = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(F.account(1))/subscriptions?at=2026-01-05T00:00:00Z",
          method: .get, headers: H.authorized))
      #expect(subscriptions["subscriptions"]?.array?.first?["seats"]?["available"] == .number(4))
      let before = try await H.eventCount(database)
      let cases: [(String, HTTPRequest.Method, String, ByteBuffer?, HTTPResponse.Status, String)] =
        [
          ("unknown subscription", .get, "/v1/seats/123", nil, .notFound, "not_found"),
          ("not a transaction id", .get, "/v1/seats/abc", nil, .badRequest, "invalid_request"),
          (
            "a member that is not a UUID", .post, "/v1/seats/6100/claims",
            H.json(["appAccountToken": "member-1"]), .badRequest, "invalid_body"
          ),
          (
            "no credentials", .post, "/v1/seats/6100/claims",
            H.json(["appAccountToken": F.account(2)]), .notImplemented, "not_configured"
          ),
          (
            "a claim id that is not a UUID", .delete, "/v1/seats/6100/claims/claim-1", nil,
            .badRequest, "invalid_request"
          ),
          (
            "an unknown claim", .delete,
            "/v1/seats/6100/claims/5b0c2d4e-0000-4000-8000-000000000001", nil, .notFound,
            "not_found"
          ),
        ]
      for (name, method, uri, body, status, code) in cases {
        let answer = try await client.execute(
          uri: uri, method: method, headers: H.authorized, body: body)
        #expect(answer.status == status, "\(name): \(String(buffer: answer.body))")
        #expect(try H.errorCode(answer) == code, "\(name)")
      }
      #expect(try await H.eventCount(database) == before)
      let unauthorized = try await client.execute(uri: "/v1/seats/6100", method: .get)
      #expect(unauthorized.status == .unauthorized)
    }
  }
}
