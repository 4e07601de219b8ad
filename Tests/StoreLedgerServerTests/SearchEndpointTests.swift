import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Search by what support has, over HTTP on PostgreSQL: a token's start in another spelling,
/// a transaction id's start, the backend's own user id once it told StoreLedger (an alias, one
/// per account and one account per alias), and an order id the console offers to look up.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SearchEndpointTests {
  typealias H = ServerHarness
  typealias A = AccountListEndpointTests

  static func search(_ client: some TestClientProtocol, _ query: String) async throws
    -> [String: [String]]
  {
    let escaped = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
    let response = try await client.execute(
      uri: "/v1/search?q=\(escaped)", method: .get, headers: H.authorized)
    #expect(response.status == .ok, "\(query)")
    guard case .array(let matches)? = try H.value(response)["matches"] else { return [:] }
    var found: [String: [String]] = [:]
    for case .object(let match) in matches {
      guard case .string(let token)? = match["appAccountToken"],
        case .array(let ways)? = match["matched"]
      else { continue }
      found[token] = ways.compactMap { if case .string(let way) = $0 { way } else { nil } }
    }
    return found
  }

  static func alias(
    _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ token: String,
    _ alias: String? = nil
  ) async throws -> TestResponse {
    try await client.execute(
      uri: "/v1/accounts/\(token)/alias", method: method,
      headers: [.authorization: "Bearer \(H.apiKey)", .contentType: "application/json"],
      body: alias.map { H.json(["alias": $0]) })
  }

  @Test func supportFindsCustomersByWhatTheyHave() async throws {
    try await H.withServer { client, database in
      try await A.notifyAll(client)
      let day = (Date().timeIntervalSince1970 * 1000 - Double(LedgerFixtures.epoch)) / 86_400_000
      let long = "a7000000-0000-4000-8000-000000000007"
      let stored = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .subscribed, .initialBuy, uuid: "d1000000-0000-4000-8000-000000000077",
            transaction: LedgerFixtures.transaction(
              "2000000777123456", purchased: day - 1, expires: day + 29, token: long))))
      #expect(stored.status == .ok)
      try await A.project(database)
      // The start of a token, in capitals and without dashes.
      #expect(
        try await Self.search(client, "B2000000000040") == [A.retry: ["appAccountToken prefix"]])
      // A whole transaction id, and the start of one (six digits or more).
      #expect(
        try await Self.search(client, "9400") == [
          A.expired: ["originalTransactionId", "transactionId"]
        ])
      #expect(try await Self.search(client, "20000007771") == [long: ["transactionId prefix"]])
      #expect(try await Self.search(client, "20000") == [:], "too short to be a start")

      // The backend's own id: set, found, moved, refused for another account, removed.
      var response = try await Self.alias(client, .put, A.active, "user-4711")
      #expect(response.status == .ok)
      #expect(try H.value(response)["alias"] == .string("user-4711"))
      #expect(try await Self.search(client, "user-4711") == [A.active: ["alias"]])
      response = try await Self.alias(client, .put, A.retry, "user-4711")
      #expect(response.status == .conflict)
      #expect(String(buffer: response.body).contains("another account has the alias"))
      response = try await Self.alias(client, .put, A.active, "  user-9000 ")
      #expect(try H.value(response)["alias"] == .string("user-9000"))
      #expect(try await Self.search(client, "user-4711") == [:], "an account has one alias")
      response = try await Self.alias(client, .put, A.retry, "user-4711")
      #expect(response.status == .ok, "free again")
      response = try await Self.alias(client, .get, A.active)
      #expect(try H.value(response)["alias"] == .string("user-9000"))
      response = try await Self.alias(client, .put, A.active, "\u{7}bell")
      #expect(response.status == .badRequest)
      // A final line break is a control character too (schemathesis found it let through:
      // the pattern's `$` was read as ICU's, which holds before a final line break).
      response = try await Self.alias(client, .put, A.active, "user-9001\n")
      #expect(response.status == .badRequest)
      response = try await Self.alias(client, .get, A.active)
      #expect(try H.value(response)["alias"] == .string("user-9000"), "nothing changed")
      // Lengths in code points, as the table counts them: 150 letters with a combining mark
      // each are 300 code points (schemathesis sent such text; it answered 500 before).
      let marked = String(repeating: "a\u{0301}", count: 150)
      response = try await Self.alias(client, .put, A.active, marked)
      #expect(response.status == .badRequest, "\(String(buffer: response.body))")
      response = try await Self.alias(
        client, .put, A.active, String(marked.unicodeScalars.prefix(200)))
      #expect(response.status == .ok, "200 code points fit")
      response = try await Self.alias(client, .delete, A.active)
      #expect(try H.value(response)["alias"] == .null)
      #expect(try await Self.search(client, "user-9000") == [:])

      // The console: an id that reads as an order id, on a server without Apple credentials,
      // says how to find it instead of "nothing".
      let base = "http://127.0.0.1:\(try #require(client.port))/console"
      var signIn = URLRequest(url: URL(string: "\(base)/sign-in")!)
      signIn.httpMethod = "POST"
      signIn.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
      signIn.httpBody = Data("key=\(H.apiKey)".utf8)
      let session = URLSession(configuration: .ephemeral)
      _ = try await session.data(for: signIn)
      let (page, answer) = try await session.data(
        from: URL(string: "\(base)/search?q=MK5TTTVWJH")!)
      #expect((answer as? HTTPURLResponse)?.statusCode == 404)
      #expect(String(decoding: page, as: UTF8.self).contains("storeledger order MK5TTTVWJH"))
    }
  }
}
