import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The console's revenue page: charts drawn on the server (SVG, no scripts, every point named),
/// the figures in a table, a drill-down from a bucket to the purchases behind it, the
/// two-clocks comparison, and a clear refusal of a question it cannot answer.
@Suite struct ConsoleRevenuePageTests {
  typealias H = ServerHarness

  func get(_ uri: String, _ cookie: String, _ client: some TestClientProtocol) async throws
    -> (HTTPResponse.Status, String)
  {
    let response = try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie])
    return (response.status, String(buffer: response.body))
  }

  @Test func chartsTablesDrillDownAndComparison() async throws {
    try await H.withInProcessServer { client, _ in
      try await MetricsEndpointTests.send(client)
      let cookie = try await ConsoleHTTPTests.signIn(client)
      let (status, page) = try await get(
        "/console/revenue?from=2026-01-01&to=2026-03-01&by=month&compare=2000-01-01", cookie,
        client)
      #expect(status == .ok)
      #expect(!page.contains("<script"))
      for id in ["chart-mrr", "chart-actives", "chart-churn", "revenue-table", "revenue-cards"] {
        #expect(page.contains("id=\"\(id)\""), "\(id)")
      }
      // Every point says what it is, for screen readers and on hover.
      #expect(page.contains("aria-label=\"MRR, 2026-01: 9.99\""))
      #expect(page.contains("<title>Refund, 2026-02: 1</title>"))
      // Patterns as well as colours: the churn bars' legend draws them.
      #expect(page.contains("<pattern id=\"chart-churn-p2\""))
      #expect(page.contains("id=\"revenue-cohorts\""))
      // Trials converted are told against the trials that ended, never against those started
      // (another cohort: a range once read "100 / 144").
      #expect(page.contains("Trials started</div>"))
      let ended = try #require(
        page.firstMatch(of: /<strong>(\d+) of (\d+)<\/strong>Trials ended in the range: converted/))
      #expect(Int(ended.1)! <= Int(ended.2)!)
      #expect(page.contains("id=\"revenue-diff\"") && page.contains("id=\"revenue-causes\""))

      let link = try #require(
        page.range(of: "/console/revenue/bucket?[^\"]*", options: .regularExpression).map {
          String(page[$0]).replacingOccurrences(of: "&amp;", with: "&")
        })
      let (bucketStatus, bucket) = try await get(link, cookie, client)
      #expect(bucketStatus == .ok)
      #expect(bucket.contains("id=\"bucket-entries\"") && bucket.contains("9100"))
      #expect(bucket.contains("/console/search?q=9100"))

      // The definition is chosen on the page, and the chosen one stays selected.
      #expect(page.contains("<option value=\"storeledger\" selected"))
      let (peerStatus, peer) = try await get(
        "/console/revenue?from=2026-01-01&to=2026-03-01&by=month&definition=revenuecat", cookie,
        client)
      #expect(peerStatus == .ok)
      #expect(peer.contains("<option value=\"revenuecat\" selected"))
      #expect(peer.contains("In billing retry at the end"))
      let (unknown, refusal) = try await get(
        "/console/revenue?from=2026-01-01&to=2026-03-01&definition=chartmogul", cookie, client)
      #expect(unknown == .badRequest && refusal.contains("unknown_definition"))

      let (refused, message) = try await get(
        "/console/revenue?from=2026-03-01&to=2026-01-01", cookie, client)
      #expect(refused == .badRequest)
      #expect(message.contains("range_reversed"))
      let (signedOut, _) = try await get("/console/revenue", "storeledger_session=none", client)
      #expect(signedOut == .seeOther)
    }
  }
}
