import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// A long-lived customer's page: events by when they happened and changes newest first, a page
/// at a time with the total, product and transaction columns, evidence on its own page, every
/// catalog entitlement explained ("never held" included), and the moment marked.
@Suite struct ConsoleAccountPagesTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures

  @Test func eventsAndChangesArePagedNewestFirstWithTheirTotals() async throws {
    try await H.withInProcessServer { client, database in
      let token = "00000000-0000-4000-8000-000000000001"
      let gems = F.transaction(
        "7700", product: "gems.100", type: .consumable, purchased: 0, signed: 0)
      for _ in 0..<12 {
        let bought = try await client.execute(
          uri: "/v1/transactions", method: .post, headers: H.authorized,
          body: H.json(["signedTransaction": try H.signed.transaction(gems)]))
        #expect(bought.status == .created || bought.status == .ok)
      }
      // 55 debits: with the purchase, 56 events and as many balance changes.
      for index in 1...55 {
        var headers = H.authorized
        headers[HTTPField.Name("Idempotency-Key")!] = "spend-\(index)"
        let debit = try await client.execute(
          uri: "/v1/accounts/\(token)/consumables/gems.100/debits", method: .post,
          headers: headers, body: H.json(["quantity": 1]))
        #expect(debit.status == .created)
      }
      let cookie = try await ConsoleHTTPTests.signIn(client)
      // The projector derives changes behind the log: wait until the feed holds every balance
      // change before the page is read, so the changes table is complete.
      try await Self.waitForChanges(client, token: token, atLeast: 58)
      let first = String(
        buffer: try await client.execute(
          uri: "/console/accounts/\(token)", method: .get, headers: [.cookie: cookie]
        ).body)
      #expect(first.contains("Every event of the account, newest first (56 in all)"))
      #expect(first.contains("Page 1 of 2"))
      #expect(first.contains("events=1&amp;changes=0#events"))
      #expect(first.contains("<th scope=\"col\">Product</th><th scope=\"col\">Transaction</th>"))
      // The newest event leads; the purchase is on the older page.
      let rows = first.components(separatedBy: "<td>debit:").count - 1
      #expect(rows == 50 || rows == 0)
      #expect(!first.contains("<td>7700</td><td>"), "the purchase is on the older page")
      let older = String(
        buffer: try await client.execute(
          uri: "/console/accounts/\(token)?events=1", method: .get, headers: [.cookie: cookie]
        ).body)
      #expect(older.contains("<td>gems.100</td><td>7700</td>"))
      #expect(older.contains("Page 2 of 2"))
      // The 55 debits' balance changes and the three the purchase derives.
      #expect(first.contains("change feed, newest first (58 in all)"), "changes have their total")
      #expect(first.contains("45 → 44") || first.contains("→"), "changes say old → new")
      // Every catalog entitlement, the one never held included.
      #expect(first.contains("never held"))
      #expect(first.contains("pro was never held by"))
      // Evidence opens on its own page, for the account's own events only.
      let link = try #require(first.range(of: "/evidence?key="))
      let key = String(first[link.upperBound...].prefix { $0 != "\"" })
      let evidence = try await client.execute(
        uri: "/console/accounts/\(token)/evidence?key=\(key)", method: .get,
        headers: [.cookie: cookie])
      #expect(evidence.status == .ok)
      #expect(String(buffer: evidence.body).contains("Stream "))
      let foreign = try await client.execute(
        uri: "/console/accounts/00000000-0000-4000-8000-000000000002/evidence?key=\(key)",
        method: .get, headers: [.cookie: cookie])
      #expect(foreign.status == .notFound)
      #expect(first.count < 50 * 4_000, "no JWS inline: \(first.count) bytes")
    }
  }

  /// Waits (long-polling the feed, at most ten seconds) until the account has `atLeast` changes.
  static func waitForChanges(
    _ client: any TestClientProtocol, token: String, atLeast target: Int
  ) async throws {
    var after = 0
    var seen = 0
    let deadline = ContinuousClock.now + .seconds(10)
    while seen < target, ContinuousClock.now < deadline {
      let page = try H.value(
        try await client.execute(
          uri: "/v1/changes?after=\(after)&wait=2&appAccountToken=\(token)&limit=100",
          method: .get, headers: H.authorized))
      let changes = page["changes"]?.array ?? []
      seen += changes.count
      if case .number(let position)? = changes.last?["position"] { after = Int(position) }
    }
    try #require(seen >= target, "the projector derived \(seen) of \(target) changes")
  }
}
