import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@Suite(.enabled(if: TestDatabase.shouldRun)) struct WebhookLoadAndOutageTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  /// 200 customers × 5 notifications (subscribe, four renewals).
  static func notifications() throws -> [String] {
    var payloads: [String] = []
    for customer in 0..<200 {
      let original = "8\(customer)000"
      for period in 0..<5 {
        let id = period == 0 ? original : "8\(customer)00\(period)"
        let transaction = F.transaction(
          id, original: original, purchased: Double(period * 30),
          expires: Double(period * 30 + 30), token: LedgerFixtures.account(customer))
        payloads.append(
          try H.signed.notification(
            period == 0 ? .subscribed : .didRenew, period == 0 ? .initialBuy : nil,
            uuid: "load-\(customer)-\(period)", transaction: transaction))
      }
    }
    return payloads
  }

  /// 1,000 notifications, 20 % of them sent twice, in random order by 32 concurrent
  /// clients: each stored once, and every account's answer equals the fold of the whole log.
  @Test func concurrentDuplicatedNotificationsAreStoredOnce() async throws {
    let payloads = try Self.notifications()
    var random = SeededRandom(seed: 5)
    let sends = (payloads + payloads.prefix(200)).shuffled(using: &random)
    try await H.withServer { client, database in
      let statuses = try await withThrowingTaskGroup(of: [HTTPResponse.Status].self) { group in
        for worker in 0..<32 {
          group.addTask {
            var statuses: [HTTPResponse.Status] = []
            for index in stride(from: worker, to: sends.count, by: 32) {
              let response = try await client.execute(
                uri: "/v1/notifications/appstore", method: .post,
                body: H.webhookBody(sends[index]))
              statuses.append(response.status)
            }
            return statuses
          }
        }
        return try await group.reduce(into: []) { $0 += $1 }
      }
      #expect(statuses.count == 1_200)
      #expect(statuses.allSatisfy { $0 == .ok })
      #expect(try await H.eventCount(database) == 1_000)
      let view = try await Self.foldOfTheWholeLog(database)
      let time = F.t(140)
      for customer in stride(from: 0, to: 200, by: 7) {
        let token = LedgerFixtures.account(customer)
        let answer = try H.value(
          try await client.execute(
            uri: "/v1/accounts/\(token)/entitlements?at=\(time.date.formatted(.iso8601))",
            method: .get, headers: H.authorized))
        let expected = try JSONDecoder().decode(
          JSONValue.self,
          from: try JSONEncoder().encode(view.entitlements(for: token, at: time)))
        #expect(answer["entitlements"] == expected, "\(token)")
      }
      try await Self.expectViewsEqualTheFold(view, database)
      let metrics = try await client.execute(uri: "/metrics", method: .get, headers: H.authorized)
      #expect(String(buffer: metrics.body).contains("storeledger_projector_events_total 1000"))
    }
  }

  /// Once the server's projector has caught up, every account's stored view is the fold of
  /// the whole log at the time the view was computed.
  static func expectViewsEqualTheFold(_ view: LedgerView, _ database: TestDatabase) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    var rows: [(String, String?)] = []
    while ContinuousClock.now < deadline {
      rows = try await database.asAdmin { client in
        try await client.query(
          """
          SELECT app_account_token, view::text FROM storeledger.account_views
          WHERE projected_changes = changes ORDER BY app_account_token
          """, logger: TestDatabase.logger
        ) { rows in
          var found: [(String, String?)] = []
          for try await row in rows.decode((String, String?).self) { found.append(row) }
          return found
        }
      }
      if rows.count == 200 { break }
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(rows.count == 200)
    let now = Timestamp(Date())
    for (token, json) in rows {
      let stored = try JSONDecoder().decode(AccountSummary.self, from: Data((json ?? "").utf8))
      #expect(stored == AccountSummary(view, for: token, at: now), "\(token)")
    }
  }

  static func foldOfTheWholeLog(_ database: TestDatabase) async throws -> LedgerView {
    try await database.withEventStore { store in
      var events: [LedgerEvent] = []
      var position = FeedPosition.beginning
      while true {
        let page = try await store.readFeed(after: position, limit: 500)
        guard let last = page.last else { break }
        events += try page.map(EventCodec.event)
        position = last.position
      }
      return LedgerView(LedgerState.fold(events), catalog: H.catalog)
    }
  }

  /// The database goes away mid-run: the webhook answers 503 (so Apple retries) and stores
  /// nothing; once it is back the retried notification lands exactly once.
  @Test func databaseOutageAnswers503AndRetriesLandOnce() async throws {
    let payloads = try Self.notifications()
    try await H.withServer(databaseTimeout: .seconds(2)) { client, database in
      let first = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[0]))
      #expect(first.status == .ok)
      try await Self.setConnections(allowed: false, on: database)
      let refused = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[1]))
      #expect(refused.status == .serviceUnavailable)
      #expect(try H.errorCode(refused) == "database_unavailable")
      #expect(refused.headers[.retryAfter] != nil)
      #expect(try await client.execute(uri: "/health", method: .get).status == .serviceUnavailable)
      try await Self.setConnections(allowed: true, on: database)
      #expect(try await Self.retried(payloads[1], on: client) == .ok)
      let again = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[1]))
      #expect(try H.value(again)["duplicate"] == .bool(true))
      #expect(try await H.eventCount(database) == 2)
    }
  }

  /// A table lock held longer than the database timeout (a migration, an operator's
  /// `LOCK TABLE`): the webhook and a read answer 503 with `Retry-After` while the lock is
  /// still held — the timeout is a deadline, not a wish a waiting statement ignores — and once
  /// the lock goes the retried notification is stored exactly once.
  @Test func aHeldTableLockIsAnswered503WithinTheTimeout() async throws {
    let payloads = try Self.notifications()
    try await H.withServer(databaseTimeout: .seconds(2)) { client, database in
      let first = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[0]))
      #expect(first.status == .ok)
      try await database.asAdmin { admin in
        try await admin.withConnection { lock in
          try await lock.execute("BEGIN", logger: H.logger)
          try await lock.execute(
            "LOCK TABLE storeledger.events, storeledger.account_views IN ACCESS EXCLUSIVE MODE",
            logger: H.logger)
          // Answered while the lock is held, or the test fails after a minute instead of
          // hanging: nothing here releases the lock before both answers are in.
          let (webhook, read) = try await withTimeout(.seconds(60)) {
            async let webhook = client.execute(
              uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[1]))
            // An account this server never read (a view it read is answered from memory).
            async let read = client.execute(
              uri: "/v1/accounts/\(LedgerFixtures.account(150))/entitlements", method: .get,
              headers: H.authorized)
            return try await (webhook, read)
          }
          for answer in [webhook, read] {
            #expect(answer.status == .serviceUnavailable, "\(String(buffer: answer.body))")
            #expect(try H.errorCode(answer) == "database_unavailable")
            #expect(answer.headers[.retryAfter] != nil)
          }
          try await lock.execute("ROLLBACK", logger: H.logger)
        }
      }
      #expect(try await Self.retried(payloads[1], on: client) == .ok)
      #expect(try await H.eventCount(database) == 2, "the late first attempt and the retry: once")
    }
  }

  /// The database's disk fills up: the webhook answers 503 with `Retry-After` (so Apple
  /// retries) and stores nothing, reads still answer; once space is freed the retried
  /// notification is stored exactly once. On a server whose data directory is a 96 MB tmpfs.
  @Test(.enabled(if: TestDatabase.shouldRunOnASmallDisk))
  func aFullDiskIsAnswered503AndRetriesLandOnce() async throws {
    let small = try #require(
      TestDatabase.smallDiskURL, "no small disk: scripts/test mounts one when run as root")
    let payloads = try Self.notifications()
    try await H.withServer(databaseTimeout: .seconds(5), on: small) { client, database in
      let first = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[0]))
      #expect(first.status == .ok)
      let filled = try await Self.fillTheDisk(database)
      #expect(filled, "the disk never filled")
      let refused = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[5]))
      #expect(refused.status == .serviceUnavailable, "\(String(buffer: refused.body))")
      #expect(try H.errorCode(refused) == "database_unavailable")
      #expect(refused.headers[.retryAfter] != nil)
      #expect(String(buffer: refused.body).contains("disk is full"))
      let read = try await client.execute(
        uri: "/v1/accounts/\(LedgerFixtures.account(0))/entitlements", method: .get,
        headers: H.authorized)
      #expect(read.status == .ok, "reads need no space")
      #expect(try await H.eventCount(database) == 1, "nothing stored")
      try await database.asAdmin { admin in
        try await admin.execute("DROP TABLE public.filler", logger: H.logger)
      }
      let retried = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payloads[5]))
      #expect(retried.status == .ok, "\(String(buffer: retried.body))")
      #expect(try await H.eventCount(database) == 2)
    }
  }

  /// Writes incompressible megabytes until PostgreSQL says the disk is full (53100); true
  /// when it did.
  static func fillTheDisk(_ database: TestDatabase) async throws -> Bool {
    try await database.asAdmin { admin in
      try await admin.execute("CREATE TABLE public.filler (b bytea)", logger: H.logger)
      try await admin.execute(
        "ALTER TABLE public.filler ALTER COLUMN b SET STORAGE EXTERNAL", logger: H.logger)
      for _ in 0..<400 {
        do {
          try await admin.execute(
            """
            INSERT INTO public.filler
            SELECT decode(string_agg(md5(random()::text), ''), 'hex')
            FROM generate_series(1, 65536)
            """, logger: H.logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "53100" {
          return true
        }
      }
      return false
    }
  }

  /// Sends `payload` again, as Apple retries, until it is answered 200 (at most 30 times):
  /// the last status.
  static func retried(_ payload: String, on client: any TestClientProtocol) async throws
    -> HTTPResponse.Status
  {
    var status = HTTPResponse.Status.serviceUnavailable
    for _ in 0..<30 where status != .ok {
      status =
        try await client.execute(
          uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payload)
        ).status
    }
    return status
  }

  /// Closes (or reopens) the test database to new sessions and ends the open ones: an outage
  /// of this database only, the cluster's other tests go on.
  static func setConnections(allowed: Bool, on database: TestDatabase) async throws {
    guard let server = TestDatabase.serverURL else { return }
    try await PostgresClient.withRunningClient(server, logger: TestDatabase.logger) { client in
      try await client.execute(
        PostgresQuery(
          unsafeSQL: "ALTER DATABASE \(database.name) WITH ALLOW_CONNECTIONS \(allowed)"),
        logger: TestDatabase.logger)
      if !allowed {
        try await client.execute(
          """
          SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = \(database.name) AND pid <> pg_backend_pid()
          """, logger: TestDatabase.logger)
      }
    }
  }
}
