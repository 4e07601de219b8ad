import AppStoreSimulator
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The change feed delivered to real receivers: the simulator through the real webhook, a
/// receiver that checks every signature on its own and fails one first delivery in five, and
/// one that answers 500 forever.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ChangeWebhookTests {
  typealias H = ServerHarness
  static let secret = "whsec-test-4c1d"

  /// What a receiver saw: each accepted body, in arrival order, and what it refused.
  final class Inbox: Sendable {
    struct State {
      var accepted: [JSONValue] = []
      var refusedOnPurpose = 0
      /// The changes refused once: a change is refused at most once, so `/ok` never
      /// dead-letters however slow the machine (the retry window is two seconds).
      var refused: Set<String> = []
      var badSignatures = 0
      var requests = 0
    }
    let state = Mutex(State())
  }

  /// The receiver's own check (written here, not StoreLedger's): HMAC-SHA256 over
  /// "<t>.<body>", `t` within five minutes.
  static func verifies(_ header: String?, body: [UInt8]) -> Bool {
    guard let header else { return false }
    let parts = Dictionary(
      header.split(separator: ",").compactMap { part -> (String, String)? in
        let pair = part.split(separator: "=", maxSplits: 1)
        return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
      }, uniquingKeysWith: { a, _ in a })
    guard let t = parts["t"], let seconds = Double(t), let v1 = parts["v1"],
      abs(Date().timeIntervalSince1970 - seconds) < 300
    else { return false }
    let mac = HMAC<SHA256>.authenticationCode(
      for: Array("\(t).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
    return mac.map { String(format: "%02x", $0) }.joined() == v1
  }

  /// A receiver on loopback: `/ok` verifies and fails one first delivery in five (by a seeded
  /// draw), `/down` always answers 500.
  static func withReceiver(
    _ inbox: Inbox, _ body: @Sendable (Int) async throws -> Void
  ) async throws {
    let router = Router()
    let draws = Mutex(SeededRandom(seed: 7))
    router.post("/ok") { request, _ -> HTTPResponse.Status in
      var request = request
      let bytes = Array(try await request.collectBody(upTo: 1 << 20).readableBytesView)
      guard Self.verifies(request.headers[HTTPField.Name("StoreLedger-Signature")!], body: bytes)
      else {
        inbox.state.withLock { $0.badSignatures += 1 }
        return .unauthorized
      }
      let id = request.headers[HTTPField.Name("StoreLedger-Change-Id")!] ?? ""
      let draw = draws.withLock { $0.next() % 5 == 0 }
      return inbox.state.withLock { state in
        state.requests += 1
        if draw, state.refused.insert(id).inserted {
          state.refusedOnPurpose += 1
          return .internalServerError
        }
        if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) {
          state.accepted.append(value)
        }
        return .noContent
      }
    }
    router.post("/down") { _, _ -> HTTPResponse.Status in .internalServerError }
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    try await app.test(.live) { client in try await body(try #require(client.port)) }
  }

  @Test func theReceiverEndsWithExactlyTheDerivedChangesInOrderPerAccount() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 60, months: 6, seed: 23))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let inbox = Inbox()
    try await Self.withReceiver(inbox) { port in
      try await TestDatabase.withMigrated { database in
        var configuration = H.configuration(database)
        var delivery = ChangeDeliveryConfiguration(
          endpoints: [
            try ChangeEndpoint(url: "http://127.0.0.1:\(port)/ok", secret: Self.secret),
            try ChangeEndpoint(url: "http://127.0.0.1:\(port)/down", secret: "other"),
          ])
        delivery.initialDelay = .milliseconds(20)
        delivery.maximumDelay = .milliseconds(200)
        delivery.retryFor = .seconds(2)
        configuration.changeDelivery = delivery
        let ledgerConfiguration = configuration.ledger
        let application = try buildApplication(
          configuration: configuration, logger: ServerHarness.logger)
        try await application.test(.ahc(.http)) { client in
          let url = "http://127.0.0.1:\(try #require(client.port))/v1/notifications/appstore"
          await NotificationDeliverer(
            store: store, webhookURL: url,
            faults: DeliveryFaults(duplicateFraction: 0.1, reorder: true, seed: 5),
            logger: Logger(label: "test.simulator", factory: { _ in SwiftLogNoOpLogHandler() })
          ).deliverPending()
          try await database.asWriter { writer in
            let ledger = try Ledger(
              client: writer, configuration: ledgerConfiguration, logger: TestDatabase.logger)
            try await Self.compare(inbox, with: ledger, client: client)
          }
        }
      }
    }
  }

  /// Waits until the feed has settled and `/ok` has every change, then compares.
  static func compare(_ inbox: Inbox, with ledger: Ledger, client: some TestClientProtocol)
    async throws
  {
    var feed: [ChangeRecord] = []
    let deadline = Date().addingTimeInterval(90)
    var previousHead: Int64 = -1
    var last = ""
    while Date() < deadline {
      try await Task.sleep(for: .milliseconds(500))
      let head = try await ChangeFeedReader(ledger: ledger).head()
      defer { previousHead = head }
      let counts = try await ChangeDeliveryLog(ledger: ledger).changeDeliveryCounts()
      let ok = try #require(counts.first { $0.endpoint.hasSuffix("/ok") })
      last = "head \(head), /ok \(ok)"
      // Settled: the projector appended nothing for half a second and all is delivered.
      if head > 0, head == previousHead, ok.delivered == head,
        ok.retrying + ok.waiting + ok.unqueued == 0
      {
        feed = try await Self.all(ledger)
        if Int64(feed.count) == (try await ChangeFeedReader(ledger: ledger).head()) { break }
      }
    }
    #expect(feed.count > 100, "not settled in 90 s: \(last)")
    let state = inbox.state.withLock { $0 }
    #expect(state.badSignatures == 0)
    #expect(state.refusedOnPurpose > feed.count / 10)
    // Unique ids in arrival order, grouped per account.
    var seen: Set<String> = []
    var received: [String: [String]] = [:]
    for body in state.accepted {
      guard case .string(let id)? = body["id"], case .string(let token)? = body["appAccountToken"]
      else { continue }
      if seen.insert(id).inserted { received[token, default: []].append(id) }
    }
    let accounts = Set(feed.map(\.appAccountToken))
    #expect(Set(received.keys) == accounts)
    let through = Date().addingTimeInterval(-1)
    for token in accounts.sorted() {
      let derived = try await ChangeFeedReader(ledger: ledger).derivedFromLog(
        of: token, through: through)
      let expected = derived.indices.map {
        ChangeRecord.id(account: token, ordinal: Int64($0)).uuidString.lowercased()
      }
      #expect(received[token] == expected, "account \(token)")
      let stored = feed.filter { $0.appAccountToken == token }
      #expect(
        stored.map {
          DerivedChange(
            $0.change, occurredAt: $0.occurredAt, effectiveAt: $0.effectiveAt, cause: $0.cause)
        }
          == derived)
    }
    // The receiver that is down never held the other back; its changes end dead.
    let counts = try await ChangeDeliveryLog(ledger: ledger).changeDeliveryCounts()
    #expect(counts.first { $0.endpoint.hasSuffix("/ok") }?.dead == 0)
    let down = try #require(counts.first { $0.endpoint.hasSuffix("/down") })
    #expect(down.delivered == 0)
    #expect(down.dead > 0)
    // The console shows what became of each of an account's changes at both webhooks (a
    // URLSession keeps the session cookie across the sign-in's redirect, as a browser does).
    let base = "http://127.0.0.1:\(try #require(client.port))/console"
    var signIn = URLRequest(url: URL(string: "\(base)/sign-in")!)
    signIn.httpMethod = "POST"
    signIn.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    signIn.httpBody = Data("key=\(H.apiKey)".utf8)
    let session = URLSession(configuration: .ephemeral)
    _ = try await session.data(for: signIn)
    let account = try #require(feed.first?.appAccountToken)
    let (page, _) = try await session.data(from: URL(string: "\(base)/accounts/\(account)")!)
    let html = String(decoding: page, as: UTF8.self)
    #expect(html.contains("/ok: delivered 20"))
    #expect(html.contains("/down: dead after") || html.contains("/down: retrying"))
    let response = try await client.execute(
      uri: "/v1/changes/deliveries?state=dead&limit=5", method: .get, headers: H.authorized)
    #expect(response.status == .ok)
    // The failing list pages by cursor with the whole list's total; the receiver that is down
    // keeps it at one delivery or more, the one that answers has none in it.
    let failing = try H.value(
      try await client.execute(
        uri: "/v1/changes/deliveries?failing=true&limit=1", method: .get, headers: H.authorized))
    let total = try #require(failing["total"]?.number)
    #expect(total >= 1)
    let rows = failing["deliveries"]?.array ?? []
    #expect(rows.count == 1)
    #expect(rows.allSatisfy { $0["endpoint"]?.string?.hasSuffix("/down") == true })
    if total > 1, case .string(let cursor)? = failing["nextCursor"] {
      let next = try await client.execute(
        uri: "/v1/changes/deliveries?failing=true&limit=1&cursor=\(cursor)", method: .get,
        headers: H.authorized)
      #expect(next.status == .ok)
      #expect(try H.value(next)["total"]?.number == total, "later pages carry the count")
      let other = try await client.execute(
        uri: "/v1/changes/deliveries?limit=1&cursor=\(cursor)", method: .get,
        headers: H.authorized)
      #expect(other.status == .unprocessableContent)
      #expect(try H.errorCode(other) == "invalid_cursor")
    } else {
      #expect(failing["nextCursor"] == .null, "the last page says so")
    }
    let metrics = try await client.execute(uri: "/metrics", method: .get)
    let text = String(buffer: metrics.body)
    #expect(text.contains("storeledger_change_deliveries{endpoint=\"127.0.0.1:"))
    #expect(text.contains("storeledger_changes_head \(feed.count)"))
    #expect(text.contains("storeledger_changes_delivered_total{endpoint=\"127.0.0.1:"))
    // The deliverer keeps dead-lettering the down receiver's changes meanwhile: at least as many.
    let dead = text.split(separator: "\n").first {
      $0.hasPrefix("storeledger_change_deliveries{endpoint=")
        && $0.contains("/down\",state=\"dead\"}")
    }
    #expect((dead?.split(separator: " ").last).flatMap { Int($0) } ?? 0 >= down.dead)
  }

  /// The pull feed over HTTP: a long poll answers as soon as a change is appended; bad
  /// parameters, a position beyond the feed and an unknown endpoint are clear errors.
  @Test func theFeedOverHTTP() async throws {
    try await H.withServer { client, _ in
      let day = (Date().timeIntervalSince1970 * 1000 - Double(LedgerFixtures.epoch)) / 86_400_000
      let started = ContinuousClock.now
      async let polled = client.execute(
        uri: "/v1/changes?after=0&wait=20", method: .get, headers: H.authorized)
      // The change comes once the poll has read the empty feed and waits.
      while try await Self.readersWaiting(client) == 0 {
        try await Task.sleep(for: .milliseconds(10))
      }
      let stored = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .subscribed, .initialBuy, uuid: "c3000000-0000-4000-8000-000000000001",
            transaction: LedgerFixtures.transaction("7000", purchased: day - 1, expires: day + 30)))
      )
      #expect(stored.status == .ok)
      let page = try H.value(try await polled)
      #expect(ContinuousClock.now - started < .seconds(10))
      let changes = page["changes"]?.array ?? []
      #expect(changes.first?["type"] == .string("entitlement.granted"))
      #expect(changes.first?["data"]?["entitlement"] == .string("pro"))
      #expect(page["next"] == changes.last?["position"])
      let head = Int(try await Self.head(client))
      for (uri, status, code) in [
        ("/v1/changes?after=\(head + 1)", HTTPResponse.Status.conflict, "position_beyond_feed"),
        ("/v1/changes?wait=61", .badRequest, "invalid_request"),
        ("/v1/changes?limit=0", .badRequest, "invalid_request"),
        ("/v1/changes?after=-1", .badRequest, "invalid_request"),
        ("/v1/changes/deliveries?state=lost", .badRequest, "invalid_request"),
      ] {
        let response = try await client.execute(uri: uri, method: .get, headers: H.authorized)
        let found = try H.errorCode(response)
        #expect(response.status == status && found == code, "\(uri)")
      }
      let neither = try await client.execute(
        uri: "/v1/changes/resend", method: .post, headers: H.authorized,
        body: H.json(["endpoint": "example.com/x"]))
      #expect(try H.errorCode(neither) == "invalid_body")
      let unknown = try await client.execute(
        uri: "/v1/changes/resend", method: .post, headers: H.authorized,
        body: H.json(["endpoint": "example.com/x", "position": 1]))
      #expect(unknown.status == .notFound)
      let unauthorized = try await client.execute(uri: "/v1/changes", method: .get)
      #expect(unauthorized.status == .unauthorized)
      let document = try await client.execute(uri: "/openapi.json", method: .get)
      let paths = try H.value(document)["paths"]
      for path in ["/v1/changes", "/v1/changes/deliveries", "/v1/changes/resend"] {
        #expect(paths?[path] != nil, "\(path)")
      }
    }
  }

  static func head(_ client: some TestClientProtocol) async throws -> Double {
    let page = try H.value(
      try await client.execute(
        uri: "/v1/changes?after=0&limit=1000", method: .get, headers: H.authorized))
    guard case .number(let last)? = page["next"] else { return 0 }
    return last
  }

  /// The change feed's readers waiting now, as `/metrics` reports them.
  static func readersWaiting(_ client: some TestClientProtocol) async throws -> Int {
    let metrics = try await client.execute(uri: "/metrics", method: .get)
    let line = String(buffer: metrics.body).split(separator: "\n").first {
      $0.hasPrefix("storeledger_change_feed_readers_waiting ")
    }
    return (line?.split(separator: " ").last).flatMap { Int($0) } ?? 0
  }

  static func all(_ ledger: Ledger) async throws -> [ChangeRecord] {
    var records: [ChangeRecord] = []
    while true {
      let page = try await ChangeFeedReader(ledger: ledger).changes(
        after: records.last?.position ?? 0, limit: 1000)
      if page.isEmpty { return records }
      records += page
    }
  }
}
