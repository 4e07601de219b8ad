import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// `POST /v1/accounts/{token}/consent` records the customer's answer (idempotent by the
/// header), `GET` shows the answer in force and the history; bad input changes nothing.
@Suite struct ConsentEndpointTests {
  typealias H = ServerHarness
  static let token = "00000000-0000-4000-8000-0000000000c5"

  @Test func consentIsRecordedShownAndIdempotent() async throws {
    try await H.withInProcessServer { client, memory in
      var headers = H.authorized
      headers[HTTPField.Name("Idempotency-Key")!] = "dialog-1"
      let first = try await client.execute(
        uri: "/v1/accounts/\(Self.token.uppercased())/consent", method: .post, headers: headers,
        body: H.json(["consented": true, "collectedAt": 1_790_000_000_000, "method": "dialog v2"]))
      #expect(first.status == .created)
      let answer = try H.value(first)
      #expect(answer["appAccountToken"] == .string(Self.token))
      #expect(answer["inForce"]?["consented"] == .bool(true))
      let again = try await client.execute(
        uri: "/v1/accounts/\(Self.token)/consent", method: .post, headers: headers,
        body: H.json(["consented": true, "collectedAt": 1_790_000_000_000, "method": "dialog v2"]))
      #expect(again.status == .ok, "the same key again is the same answer")
      let withdrawn = try await client.execute(
        uri: "/v1/accounts/\(Self.token)/consent", method: .post, headers: H.authorized,
        body: H.json(["consented": false]))
      #expect(withdrawn.status == .created)
      let shown = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/consent", method: .get, headers: H.authorized))
      #expect(shown["history"]?.array?.count == 2)
      #expect(shown["inForce"]?["consented"] == .bool(false))

      let count = try await H.eventCount(memory)
      for (body, status, code) in [
        (H.json(["consented": "yes"]), HTTPResponse.Status.badRequest, "invalid_body"),
        (
          H.json(["consented": true, "collectedAt": 4_102_444_800_000]), .unprocessableContent,
          "invalid_time"
        ),
        (
          H.json(["consented": true, "method": String(repeating: "m", count: 201)]), .badRequest,
          nil
        ),
      ] {
        let refused = try await client.execute(
          uri: "/v1/accounts/\(Self.token)/consent", method: .post, headers: H.authorized,
          body: body)
        #expect(refused.status == status)
        if let code { #expect(try H.errorCode(refused) == code) }
      }
      let notAToken = try await client.execute(
        uri: "/v1/accounts/not-a-token/consent", method: .post, headers: H.authorized,
        body: H.json(["consented": true]))
      #expect(notAToken.status == .badRequest)
      #expect(try await H.eventCount(memory) == count, "nothing recorded")
    }
  }
}
