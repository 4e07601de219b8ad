import AppStoreVerification
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Bad input gets the right status and code, and the log stays empty.
@Suite struct WebhookRejectionTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  static func good() throws -> String {
    try H.signed.notification(
      .subscribed, .initialBuy, uuid: "bad-1", transaction: F.transaction("7000", purchased: 0))
  }

  static func tampered() throws -> String {
    var parts = try good().split(separator: ".").map(String.init)
    var signature = Array(parts[2])
    signature[10] = signature[10] == "A" ? "B" : "A"
    parts[2] = String(signature)
    return parts.joined(separator: ".")
  }

  static let cases: [(String, @Sendable () throws -> ByteBuffer, HTTPResponse.Status, String)] = [
    (
      "forged",
      {
        H.webhookBody(
          try SignedFixtures(pki: try TestPKI()).notification(
            .subscribed, uuid: "f", transaction: F.transaction("7000", purchased: 0)))
      }, .unauthorized, "verification_failed"
    ),
    ("tampered", { H.webhookBody(try tampered()) }, .unauthorized, "verification_failed"),
    (
      "wrong bundle",
      {
        H.webhookBody(
          try H.signed.notification(
            .subscribed, uuid: "b", transaction: F.transaction("7000", purchased: 0),
            bundleId: "com.example.other"))
      }, .unauthorized, "verification_failed"
    ),
    (
      "wrong environment",
      {
        H.webhookBody(
          try H.signed.notification(
            .subscribed, uuid: "e", transaction: F.transaction("7000", purchased: 0),
            environment: .production))
      }, .unauthorized, "verification_failed"
    ),
    (
      "oversized",
      { H.webhookBody(String(repeating: "a", count: 70 * 1024)) }, .contentTooLarge,
      "body_too_large"
    ),
    ("not JSON", { ByteBuffer(string: "signedPayload=abc") }, .badRequest, "invalid_body"),
    ("no signedPayload", { H.json(["payload": "x"]) }, .badRequest, "invalid_body"),
    ("not a JWS", { H.webhookBody("not-a-jws") }, .badRequest, "invalid_body"),
    (
      "a transaction, not a notification",
      { H.webhookBody(try H.signed.transaction(F.transaction("7000", purchased: 0))) },
      .badRequest, "invalid_payload"
    ),
    // Whatever a payload that does not verify looks like, it does not verify: an empty
    // object (read as renewal info) or a transaction signed by someone else is a 401, never
    // "data of another kind".
    (
      "forged, the payload an empty object",
      { H.webhookBody(try TestPKI().sign(payloadJSON: Array("{}".utf8))) }, .unauthorized,
      "verification_failed"
    ),
    (
      "forged, the payload a transaction",
      {
        H.webhookBody(
          try SignedFixtures(pki: try TestPKI()).transaction(F.transaction("7000", purchased: 0)))
      }, .unauthorized, "verification_failed"
    ),
    // One body, one reading: StoreLedger's decoder keeps the first of two members, a relay
    // target in Python, JavaScript or Go the last (here, a refund nobody verified).
    (
      "signedPayload twice",
      {
        ByteBuffer(
          string: #"{"signedPayload":"\#(try good())","signedPayload":"\#(try forgedRefund())"}"#)
      }, .badRequest, "invalid_body"
    ),
    (
      "signedPayload twice, once escaped",
      {
        ByteBuffer(
          string:
            #"{"signedPayload":"\#(try good())","signed\u0050ayload":"\#(try forgedRefund())"}"#)
      }, .badRequest, "invalid_body"
    ),
    (
      "a member twice deeper in",
      {
        ByteBuffer(
          string: #"{"signedPayload":"\#(try good())","meta":{"a":1,"b":[{"a":1}],"a":2}}"#)
      }, .badRequest, "invalid_body"
    ),
    // A second body object naming another app or environment: the app is read from the
    // first, so the notification would be stored under an app the other body disowns.
    (
      "a summary naming another app",
      { H.webhookBody(try mixed(summaryBundle: "com.example.other")) }, .unauthorized,
      "verification_failed"
    ),
    (
      "a summary naming another environment",
      { H.webhookBody(try mixed(summaryEnvironment: .production)) }, .unauthorized,
      "verification_failed"
    ),
    (
      "an unknown body object naming another app",
      {
        H.webhookBody(
          try mixed(unknown: ["bundleId": .string("com.example.other"), "appAppleId": .number(9)]))
      }, .unauthorized, "verification_failed"
    ),
  ]

  /// A genuine Sandbox notification whose signed body also carries a second body object.
  static func mixed(
    summaryBundle: String? = nil, summaryEnvironment: AppStoreEnvironment? = nil,
    unknown: [String: JSONValue]? = nil
  ) throws -> String {
    try H.signed.notification(
      .subscribed, uuid: "mixed", transaction: F.transaction("7000", purchased: 0)
    ) { body in
      if summaryBundle != nil || summaryEnvironment != nil {
        var summary = NotificationSummary()
        summary.bundleId = summaryBundle ?? SignedFixtures.bundleId
        summary.environment = summaryEnvironment ?? .sandbox
        body.summary = summary
      }
      if let unknown { body.unknownMembers["futureObject"] = .object(unknown) }
    }
  }

  /// A refund signed under another root, as an attacker would put beside a genuine payload.
  static func forgedRefund() throws -> String {
    try SignedFixtures(pki: try TestPKI()).notification(
      .refund, uuid: "forged-refund", transaction: F.transaction("7000", purchased: 0))
  }

  @Test func badNotificationsAreRefusedAndNothingIsStored() async throws {
    try await H.withInProcessServer { client, database in
      for (name, body, status, code) in Self.cases {
        let response = try await client.execute(
          uri: "/v1/notifications/appstore", method: .post, body: try body())
        #expect(response.status == status, "\(name)")
        #expect(try H.errorCode(response) == code, "\(name): \(String(buffer: response.body))")
      }
      #expect(try await H.eventCount(database) == 0)
      // A member Apple may add one day, named once, is kept, not refused.
      let accepted = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: ByteBuffer(
          string: #"{"signedPayload":"\#(try Self.good())","note":{"a":"{\"a\"}","b":["a","a"]}}"#))
      #expect(accepted.status == .ok, "\(String(buffer: accepted.body))")
      #expect(try await H.eventCount(database) == 1)
      // A second body object that names the same app agrees, and is kept.
      let agreeing = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try Self.mixed(unknown: [
            "bundleId": .string(SignedFixtures.bundleId), "environment": .string("Sandbox"),
          ])))
      #expect(agreeing.status == .ok, "\(String(buffer: agreeing.body))")
    }
  }

  @Test func apiKeysGuardEverythingButTheWebhookAndHealth() async throws {
    try await H.withInProcessServer { client, _ in
      let uri = "/v1/accounts/00000000-0000-4000-8000-000000000001/entitlements"
      let missing = try await client.execute(uri: uri, method: .get)
      #expect(missing.status == .unauthorized)
      #expect(try H.errorCode(missing) == "unauthorized")
      let wrong = try await client.execute(
        uri: uri, method: .get, headers: [.authorization: "Bearer sk-test-0123456788"])
      #expect(wrong.status == .unauthorized)
      let right = try await client.execute(uri: uri, method: .get, headers: H.authorized)
      #expect(right.status == .ok)
      let transaction = try await client.execute(
        uri: "/v1/transactions", method: .post, body: H.json(["signedTransaction": "x"]))
      #expect(transaction.status == .unauthorized)
      #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
      let metrics = try await client.execute(uri: "/metrics", method: .get)
      let text = String(buffer: metrics.body)
      #expect(
        text.contains(
          #"storeledger_http_requests_total{method="GET",route="/v1/accounts/{token}/entitlements",status="401"} 2"#
        ))
      let openAPI = try H.value(try await client.execute(uri: "/openapi.json", method: .get))
      #expect(openAPI["openapi"] != nil)
      let unknown = try await client.execute(
        uri: "/v1/nothing", method: .get, headers: H.authorized)
      #expect(unknown.status == .notFound)
      #expect(try H.errorCode(unknown) == "not_found")
    }
  }
}
