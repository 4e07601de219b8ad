import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerMemory
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// Through the webhook: a notification type invented here, with a body object no release
/// knows, signed by the test PKI, is answered 200, stored once, changes nothing, is counted in
/// /metrics and listed in the console; a forged one is still 401 and stores nothing.
@Suite struct NotUnderstoodWebhookTests {
  typealias H = ServerHarness

  static func invented(uuid: String, pki: TestPKI = H.pki) throws -> String {
    let members: [String: Any] = [
      "notificationType": "GADGET_RECALL", "subtype": "PARTIAL", "notificationUUID": uuid,
      "version": "2.0", "signedDate": LedgerFixtures.t(1).milliseconds,
      "gadgetInfo": ["gadgetIds": ["g-1", "g-2"], "signedGadgetInfo": "x.y.z"],
    ]
    return pki.sign(payloadJSON: Array(try JSONSerialization.data(withJSONObject: members)))
  }

  @Test func anInventedNotificationIsAnswered200StoredOnceListedAndCounted() async throws {
    try await H.withInProcessServer { client, database in
      try await Self.play(client, database)
    }
  }

  static func play(_ client: some TestClientProtocol, _ database: InMemoryLedgerStorage)
    async throws
  {
    do {
      let body = H.webhookBody(try Self.invented(uuid: "gadget-1"))
      let first = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: body)
      #expect(first.status == .ok)
      let answer = try H.value(first)
      #expect(answer["unrouted"] == .bool(true))
      #expect(answer["understood"] == .bool(false))
      #expect(answer["streamId"] == .string("unrouted:gadget-1"))
      let retry = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: body)
      #expect(retry.status == .ok)
      #expect(try H.value(retry)["duplicate"] == .bool(true))
      #expect(try await H.eventCount(database) == 1)

      let forged = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(try Self.invented(uuid: "gadget-2", pki: try TestPKI())))
      #expect(forged.status == .unauthorized)
      #expect(try await H.eventCount(database) == 1)

      let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(
        metrics.contains(
          #"storeledger_ingests_total{kind="notification",outcome="unrouted",notification_type="GADGET_RECALL"} 1"#
        ), "\(metrics)")

      let cookie = try await ConsoleHTTPTests.signIn(client)
      let overview = String(
        buffer: try await client.execute(
          uri: "/console", method: .get, headers: [.cookie: cookie]
        ).body)
      #expect(overview.contains("Notifications not understood (1 unrouted)"))
      let page = try await client.execute(
        uri: "/console/not-understood", method: .get, headers: [.cookie: cookie])
      #expect(page.status == .ok)
      let html = String(buffer: page.body)
      #expect(html.contains("gadget-1") && html.contains("GADGET_RECALL"))
      #expect(html.contains("gadgetInfo") && html.contains("unrouted"))
      // The overview's number is the list's total, and the CSV holds every row of it.
      #expect(overview.contains(#"<strong id="not-understood-total">1</strong>"#))
      #expect(html.contains(#"<p id="list-total">1 notification</p>"#))
      let csv = try await client.execute(
        uri: "/console/not-understood.csv", method: .get, headers: [.cookie: cookie])
      #expect(csv.headers[HTTPField.Name("X-Total-Count")!] == "1")
      let lines = String(buffer: csv.body).split(separator: "\r\n")
      #expect(lines.count == 2 && lines[1].hasPrefix("gadget-1,GADGET_RECALL,"), "\(lines)")
      #expect(try await H.eventCount(database) == 1, "the console only reads")
    }
  }
}
