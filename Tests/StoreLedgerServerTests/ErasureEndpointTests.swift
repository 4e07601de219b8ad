import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// `POST /v1/accounts/{token}/erasure` on a live server over a real PostgreSQL: only an admin
/// key, and only when the operator let the server's role run the erasure; then the account is
/// gone from every answer, `GET /v1/erasures` and the console say what happened.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ErasureEndpointTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-000000000001"
  static let body = H.json(["reason": "GDPR Art. 17 request", "requestedBy": "dpo"])

  @Test func anAdminKeyErasesOnceTheDatabaseAllowsTheServerToAndEveryAnswerShowsIt()
    async throws
  {
    // The live test client, which does not follow the console's sign-in redirect.
    try await TestDatabase.withMigrated { database in
      let application = try buildApplication(
        configuration: H.configuration(database), logger: H.logger)
      try await application.test(.live) { client in
        try await Self.erasesOverHTTP(client, database)
      }
    }
  }

  static func erasesOverHTTP(_ client: some TestClientProtocol, _ database: TestDatabase)
    async throws
  {
    do {
      let keys = try await ScopedKeyTests.makeKeys(
        database, [("backend", [.write, .read]), ("ops", [.admin, .read])])
      let (backend, ops) = (keys[0], keys[1])
      let gems = try H.signed.transaction(
        F.transaction("7300", product: "gems.100", type: .consumable, purchased: 0, signed: 0))
      let stored = try await client.execute(
        uri: "/v1/transactions", method: .post, headers: H.authorized,
        body: H.json(["signedTransaction": gems]))
      #expect(stored.status == .created)
      let uri = "/v1/accounts/\(Self.token)/erasure"
      let rows = try await database.eventCount()

      // A write key may not erase.
      let writer = try await client.execute(
        uri: uri, method: .post, headers: ScopedKeyTests.bearer(backend), body: Self.body)
      #expect(writer.status == .forbidden)
      #expect(try H.errorCode(writer) == "insufficient_scope")
      // An admin key, but the server's database role may not run the erasure.
      let role = try await client.execute(
        uri: uri, method: .post, headers: ScopedKeyTests.bearer(ops), body: Self.body)
      #expect(role.status == .forbidden)
      #expect(try H.errorCode(role) == "erasure_not_permitted")
      #expect(String(buffer: role.body).contains("GRANT EXECUTE"))
      #expect(try await database.eventCount() == rows)

      try await database.asAdmin { admin in
        try await admin.query(
          """
          GRANT EXECUTE ON FUNCTION storeledger.erase_accounts(text[], uuid, text, text, text)
          TO storeledger_writer
          """, logger: H.logger)
      }
      let erased = try await client.execute(
        uri: uri, method: .post, headers: ScopedKeyTests.bearer(ops), body: Self.body)
      #expect(erased.status == .ok)
      let receipt = try H.value(erased)
      #expect(receipt["outcome"] == .string("erased"))
      guard case .string(let id)? = receipt["erasureId"] else {
        Issue.record("no erasureId in \(receipt)")
        return
      }
      let again = try H.value(
        try await client.execute(
          uri: uri, method: .post, headers: ScopedKeyTests.bearer(ops), body: Self.body))
      #expect(again["outcome"] == .string("already_erased") && again["erasureId"] == .string(id))

      let balances = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(Self.token)/consumables", method: .get, headers: H.authorized))
      #expect(balances["consumables"]?.array?.isEmpty ?? true, "\(balances)")
      let listed = try H.value(
        try await client.execute(
          uri: "/v1/erasures", method: .get, headers: ScopedKeyTests.bearer(backend)))
      let record = try #require(listed["erasures"]?.array?.first)
      #expect(record["erasureId"] == .string(id))
      #expect(record["requestedBy"] == .string("dpo"))
      #expect(record["intact"] == .bool(true))

      // Support sees that the account was erased, and when, not "no such account".
      let cookie = try await ConsoleHTTPTests.signIn(client)
      let page = try await client.execute(
        uri: "/console/accounts/\(Self.token)", method: .get, headers: [.cookie: cookie])
      #expect(page.status == .gone)
      #expect(String(buffer: page.body).contains(id))
      let search = try await client.execute(
        uri: "/console/search?q=\(Self.token)", method: .get, headers: [.cookie: cookie])
      #expect(search.status == .gone)
      let erasures = try await client.execute(
        uri: "/console/erasures", method: .get, headers: [.cookie: cookie])
      #expect(erasures.status == .ok)
      #expect(String(buffer: erasures.body).contains(id))
      #expect(String(buffer: erasures.body).contains("GDPR Art. 17 request"))

      // Bad input: a clear error, nothing changed.
      let count = try await database.eventCount()
      let unknown = try await client.execute(
        uri: "/v1/accounts/\(F.account(77))/erasure", method: .post,
        headers: ScopedKeyTests.bearer(ops), body: Self.body)
      #expect(unknown.status == .notFound)
      #expect(try H.errorCode(unknown) == "not_found")
      let noReason = try await client.execute(
        uri: uri, method: .post, headers: ScopedKeyTests.bearer(ops),
        body: H.json(["reason": " ", "requestedBy": "dpo"]))
      #expect(noReason.status == .badRequest)
      #expect(try await database.eventCount() == count)
    }
  }
}
