import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// The lists across accounts over HTTP on PostgreSQL: filters, newest-first pages whose cursors
/// walk the whole list once, totals, CSV, and the refusals (unknown filter, changed cursor).
@Suite(.serialized) struct AccountListEndpointTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  static let active = "a1000000-0000-4000-8000-000000000001"
  static let retry = "b2000000-0000-4000-8000-000000000002"
  static let grace = "c3000000-0000-4000-8000-000000000003"
  static let expired = "d4000000-0000-4000-8000-000000000004"
  static let gems = "e5000000-0000-4000-8000-000000000005"
  static let endsSoon = "f6000000-0000-4000-8000-000000000006"

  /// Six accounts, one in each situation a support list asks about, notified as Apple would.
  static func notifyAll(_ client: some TestClientProtocol) async throws {
    let day = (Date().timeIntervalSince1970 * 1000 - Double(F.epoch)) / 86_400_000
    var number = 0
    func send(
      _ type: NotificationType, _ subtype: NotificationSubtype? = nil,
      _ transaction: JWSTransactionDecodedPayload, renewal: JWSRenewalInfoDecodedPayload? = nil
    ) async throws {
      number += 1
      let response = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            type, subtype, uuid: String(format: "d1000000-0000-4000-8000-%012d", number),
            transaction: transaction, renewal: renewal)))
      #expect(response.status == .ok)
    }
    var usa = F.transaction(
      "9100", purchased: day - 10, expires: day + 20, signed: day - 10, token: active)
    usa.storefront = "USA"
    try await send(.subscribed, .initialBuy, usa)
    var deu = F.transaction(
      "9200", purchased: day - 31, expires: day - 1, signed: day - 1, token: retry)
    deu.storefront = "DEU"
    try await send(
      .didFailToRenew, nil, deu, renewal: F.renewal("9200", signed: day - 1, retry: true))
    try await send(
      .didFailToRenew, .gracePeriod,
      F.transaction("9300", purchased: day - 31, expires: day - 1, signed: day - 1, token: grace),
      renewal: F.renewal("9300", signed: day - 1, retry: true, grace: day + 5))
    try await send(
      .expired, .voluntary,
      F.transaction(
        "9400", purchased: day - 60, expires: day - 30, signed: day - 30, token: expired),
      renewal: F.renewal("9400", signed: day - 30, autoRenew: .off, intent: .customerCancelled))
    try await send(
      .oneTimeCharge, nil,
      F.transaction(
        "9500", product: "gems.100", type: .consumable, purchased: day - 2, signed: day - 2,
        token: gems))
    try await send(
      .subscribed, .initialBuy,
      F.transaction(
        "9600", purchased: day - 27, expires: day + 3, signed: day - 27, token: endsSoon))
  }

  /// The views projected now, as the server's projector would (it may run too: a view is
  /// never replaced by one that includes fewer changes).
  static func project(_ database: TestDatabase) async throws {
    try await database.asWriter { client in
      let ledger = try Ledger(
        client: client, configuration: H.configuration(database).apps[0].ledger,
        logger: TestDatabase.logger)
      _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp()
    }
  }

  static func tokens(_ value: JSONValue) -> [String] {
    (value["accounts"]?.array ?? []).compactMap { $0["appAccountToken"]?.string }
  }

  static func get(_ client: any TestClientProtocol, _ query: String) async throws -> TestResponse {
    try await client.execute(uri: "/v1/accounts?\(query)", method: .get, headers: H.authorized)
  }

  @Test func listsFilterPageAndDownload() async throws {
    try await H.withServer { client, database in
      try await Self.notifyAll(client)
      try await Self.project(database)

      let all = try H.value(try await Self.get(client, "limit=100"))
      #expect(all["total"] == .number(6))
      #expect(
        Set(Self.tokens(all)) == [
          Self.active, Self.retry, Self.grace, Self.expired, Self.gems, Self.endsSoon,
        ])
      // Newest change first: each row's change is no older than the next one's.
      let times = (all["accounts"]?.array ?? []).compactMap { $0["changedAt"]?.number }
      #expect(times == times.sorted(by: >))
      #expect(all["nextCursor"] == .null)

      func only(_ query: String) async throws -> [String] {
        let page = try H.value(try await Self.get(client, query))
        #expect(page["total"]?.number.map(Int.init) == Self.tokens(page).count, "\(query)")
        return Self.tokens(page).sorted()
      }
      #expect(try await only("status=3") == [Self.retry])
      #expect(try await only("status=billing_retry") == [Self.retry])
      #expect(try await only("status=grace_period") == [Self.grace])
      #expect(try await only("status=2") == [Self.expired])
      #expect(
        try await only("entitlement=pro") == [Self.active, Self.grace, Self.endsSoon].sorted())
      #expect(try await only("product=gems.100") == [Self.gems])
      #expect(try await only("storefront=deu") == [Self.retry])
      #expect(try await only("environment=Sandbox").count == 6)
      #expect(try await only("environment=Production").isEmpty)
      let now = Date()
      let week = now.addingTimeInterval(7 * 86_400)
      let window =
        "expiresFrom=\(ISO8601DateFormatter().string(from: now))&expiresBefore=\(ISO8601DateFormatter().string(from: week))"
      #expect(try await only(window) == [Self.endsSoon])
      #expect(try await only("status=1&entitlement=pro&storefront=USA") == [Self.active])
      // A token's start, as support pastes it: without dashes, in capitals, in a brace.
      #expect(try await only("search=%7BB2000000") == [Self.retry])
      #expect(try await only("search=C30000000000") == [Self.grace])
      #expect(try await only("search=e5000000-0000-4000-8000-000000000005") == [Self.gems])

      // Pages of two walk the list once, in its order, each carrying the first page's total.
      var walked: [String] = []
      var cursor: String?
      repeat {
        let query = "limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
        let page = try H.value(try await Self.get(client, query))
        #expect(page["total"] == .number(6))
        #expect(Self.tokens(page).count <= 2)
        walked += Self.tokens(page)
        cursor = page["nextCursor"]?.string
      } while cursor != nil && walked.count < 12
      #expect(walked == Self.tokens(all))

      // CSV: the whole list, whatever the page size.
      let csv = try await Self.get(client, "format=csv&limit=1")
      #expect(csv.status == .ok)
      #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
      #expect(csv.headers[HTTPField.Name("X-Total-Count")!] == "6")
      let lines = String(buffer: csv.body).split(separator: "\r\n")
      #expect(lines.first == Substring(ListCSV.accountsHeader.joined(separator: ",")))
      #expect(lines.count == 7)
      #expect(lines.dropFirst().map { String($0.prefix(36)) } == Self.tokens(all))
      let accepted = try await client.execute(
        uri: "/v1/accounts?status=3", method: .get,
        headers: H.authorized + [.accept: "text/csv"])
      #expect(String(buffer: accepted.body).split(separator: "\r\n").count == 2)
    }
  }

  @Test func refusesWhatIsNotAList() async throws {
    try await H.withServer { client, database in
      try await Self.notifyAll(client)
      try await Self.project(database)
      let first = try H.value(try await Self.get(client, "limit=2"))
      let cursor = try #require(first["nextCursor"]?.string)
      let before = try await database.eventCount()

      let misspelt = try await Self.get(client, "stauts=3")
      #expect(misspelt.status == .badRequest)
      #expect(try H.errorCode(misspelt) == "unknown_filter")
      #expect(String(buffer: misspelt.body).contains("`status`"))

      // One character changed, cut short, or used under other filters.
      var changed = Array(cursor)
      changed[changed.count / 3] = changed[changed.count / 3] == "A" ? "B" : "A"
      for bad in [String(changed), String(cursor.dropLast(4)), "not-a-cursor"] {
        let response = try await Self.get(client, "limit=2&cursor=\(bad)")
        #expect(response.status == .unprocessableContent)
        #expect(try H.errorCode(response) == "invalid_cursor")
      }
      let elsewhere = try await Self.get(client, "limit=2&status=1&cursor=\(cursor)")
      #expect(try H.errorCode(elsewhere) == "invalid_cursor")
      #expect(String(buffer: elsewhere.body).contains("without `cursor`"))

      for query in ["limit=0", "status=sleeping", "environment=Prod", "format=pdf"] {
        let response = try await Self.get(client, query)
        #expect(response.status == .badRequest, "\(query)")
      }
      // A NUL byte in a filter is the caller's to fix (it once answered 500): refused by name,
      // wherever in the value it stands; a search for it finds nothing.
      for query in ["product=%00", "entitlement=pro%00", "storefront=U%00SA", "environment=%00"] {
        let response = try await Self.get(client, query)
        #expect(response.status == .badRequest, "\(query)")
        #expect(try H.errorCode(response) == "invalid_request", "\(query)")
      }
      let nul = try await Self.get(client, "search=%00")
      #expect(nul.status == .ok)
      let searched = try await client.execute(
        uri: "/v1/search?q=%00", method: .get, headers: H.authorized)
      #expect(searched.status.code < 500, "\(searched.status)")
      // Each value fits the document and matches nothing: an empty list.
      let notAToken = try H.value(try await Self.get(client, "search=xyz"))
      #expect(notAToken["total"] == .number(0))
      let reversed = try H.value(
        try await Self.get(
          client, "expiresFrom=2026-12-01T00:00:00Z&expiresBefore=2026-11-01T00:00:00Z"))
      #expect(reversed["total"] == .number(0), "a window that ends before it starts holds nothing")
      #expect(try await database.eventCount() == before)
    }
  }

  @Test func transitionsListWhoEnteredAStatus() async throws {
    try await H.withServer { client, database in
      try await Self.notifyAll(client)
      try await Self.project(database)
      func transitions(_ query: String) async throws -> JSONValue {
        try H.value(
          try await client.execute(
            uri: "/v1/subscriptions/transitions?\(query)", method: .get, headers: H.authorized))
      }
      let retry = try await transitions("status=billing_retry")
      #expect(retry["total"] == .number(1))
      let row = retry["transitions"]?.array?.first
      #expect(row?["appAccountToken"] == .string(Self.retry))
      #expect(row?["originalTransactionId"] == .string("9200"))
      #expect(row?["to"] == .number(3))
      let grace = try await transitions("status=4")
      #expect(
        grace["transitions"]?.array?.compactMap { $0["appAccountToken"]?.string } == [Self.grace])
      // A window that closed before anything happened holds nothing.
      let early = try await transitions("status=3&before=2020-01-01T00:00:00Z")
      #expect(early["total"] == .number(0))
      let missing = try await client.execute(
        uri: "/v1/subscriptions/transitions", method: .get, headers: H.authorized)
      #expect(missing.status == .badRequest)
    }
  }
}

/// The same lists in the console: every overview number a link, each list's page with its
/// filters, CSV and next page, today's changes, refund requests and failing deliveries.
@Suite(.serialized) struct ConsoleListTests {
  typealias H = ServerHarness
  typealias L = AccountListEndpointTests

  @Test func theOverviewLeadsToEveryList() async throws {
    // The live test client, which does not follow the console's sign-in redirect.
    try await TestDatabase.withMigrated { database in
      let application = try buildApplication(
        configuration: H.configuration(database), logger: H.logger)
      try await application.test(.live) { client in
        try await Self.leadsToEveryList(client, database)
      }
    }
  }

  static func leadsToEveryList(_ client: some TestClientProtocol, _ database: TestDatabase)
    async throws
  {
    do {
      try await L.notifyAll(client)
      try await L.project(database)
      let cookie = try await ConsoleHTTPTests.signIn(client)
      func page(_ uri: String) async throws -> (HTTPResponse.Status, String) {
        let response = try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie])
        return (response.status, String(buffer: response.body))
      }
      let (_, overview) = try await page("/console")
      for link in [
        "/console/accounts\"", "/console/today\"", "/console/refund-requests?state=open",
        "/console/deliveries", "/console/accounts?status=3", "/console/accounts?entitlement=pro",
        "/console/transitions?from=",
      ] {
        #expect(overview.contains("href=\"\(link)"), "\(link)")
      }
      let (status, retry) = try await page("/console/accounts?status=3")
      #expect(status == .ok)
      #expect(retry.contains("href=\"/console/accounts/\(L.retry)\""))
      #expect(!retry.contains(L.active))
      #expect(retry.contains("Accounts in billing retry"))
      #expect(retry.contains("href=\"/console/accounts.csv?status=3\""))

      let (_, firstPage) = try await page("/console/accounts?search=%7BA1")
      #expect(firstPage.contains(L.active) && !firstPage.contains(L.retry))

      let (csvStatus, csv) = try await page("/console/accounts.csv?status=3")
      #expect(csvStatus == .ok)
      #expect(csv.split(separator: "\r\n").count == 2 && csv.contains(L.retry))

      let (_, transitions) = try await page("/console/transitions?status=4")
      #expect(transitions.contains(L.grace))
      #expect(transitions.contains(">Took effect<") && transitions.contains(">Recorded<"))
      let (_, today) = try await page("/console/today")
      #expect(today.contains("http-equiv=\"refresh\""))
      #expect(today.contains("href=\"/console/accounts/\(L.endsSoon)\""))
      #expect(today.contains("DID_FAIL_TO_RENEW/GRACE_PERIOD"))
      let (requestsStatus, requests) = try await page("/console/refund-requests?state=open")
      #expect(requestsStatus == .ok)
      #expect(requests.contains("href=\"/console/refund-requests.csv?state=open\""))
      let (requestsCSVStatus, requestsCSV) = try await page(
        "/console/refund-requests.csv?state=all")
      #expect(requestsCSVStatus == .ok)
      #expect(requestsCSV.hasPrefix(ListCSV.line(ListCSV.refundRequestsHeader)))
      let (deliveriesStatus, deliveries) = try await page("/console/deliveries")
      #expect(deliveriesStatus == .ok && deliveries.contains("No delivery is failing"))
      let (_, deliveriesCSV) = try await page("/console/deliveries.csv")
      #expect(deliveriesCSV == ListCSV.line(ListCSV.deliveriesHeader), "a header, no rows")

      // Bad filters: a page that says what to change, in words for support.
      let (badStatus, bad) = try await page("/console/accounts?search=hello")
      #expect(badStatus == .badRequest)
      #expect(bad.contains("search box"))
      let (cursorStatus, cursor) = try await page("/console/accounts?cursor=abc")
      #expect(cursorStatus == .badRequest && cursor.contains("cursor"))
      let (stateStatus, _) = try await page("/console/refund-requests?state=lost")
      #expect(stateStatus == .badRequest)
    }
  }
}
