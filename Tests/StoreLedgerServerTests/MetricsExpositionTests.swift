import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// `/metrics` in Prometheus' text format: what the server recorded through swift-metrics (with
/// each family's help and type, and the append histogram's buckets), and what it reads at the
/// scrape.
@Suite struct MetricsExpositionTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  @Test func recordedFamiliesCarryHelpTypeAndTheirSamples() async throws {
    try await H.withInProcessServer { client, _ in
      let posted = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .subscribed, .initialBuy, uuid: "m-1",
            transaction: F.transaction("7100", purchased: 0, expires: 30))))
      #expect(posted.status == .ok)
      let refused = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody("not.a.jws"))
      #expect(refused.status.code >= 400)
      let answer = try await client.execute(uri: "/metrics", method: .get)
      #expect(answer.status == .ok)
      let lines = String(buffer: answer.body).split(separator: "\n").map(String.init)
      for (family, type) in [
        ("storeledger_http_requests_total", "counter"), ("storeledger_ingests_total", "counter"),
        ("storeledger_append_seconds", "histogram"),
      ] {
        #expect(lines.contains { $0.hasPrefix("# HELP \(family) ") }, "help of \(family)")
        #expect(lines.contains("# TYPE \(family) \(type)"), "type of \(family)")
      }
      #expect(
        lines.contains(
          #"storeledger_http_requests_total{method="POST",route="/v1/notifications/appstore",status="200"} 1"#
        ))
      #expect(
        lines.contains(
          #"storeledger_ingests_total{kind="notification",outcome="stored",notification_type="SUBSCRIBED"} 1"#
        ))
      #expect(lines.contains("storeledger_append_seconds_count 1"))
      #expect(lines.contains { $0.hasPrefix(#"storeledger_append_seconds_bucket{le="0.001"} "#) })
      #expect(lines.contains(#"storeledger_append_seconds_bucket{le="+Inf"} 1"#))
      // Read at the scrape: the projector this in-process server runs.
      #expect(lines.contains("# TYPE storeledger_projector_events_total counter"))
      // Every sample line is a name, optional labels and a number.
      let sample = /^[a-z_]+(\{[^}]*\})? -?[0-9.e+]+$/
      for line in lines where !line.hasPrefix("#") {
        #expect(line.wholeMatch(of: sample) != nil, "not a sample: \(line)")
      }
    }
  }
}
