import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerServer

/// Named keys with scopes on a real PostgreSQL: a read key reads and is refused (403, nothing
/// written) on every write route of the OpenAPI document; a write key writes but does not
/// read; a revoked key stops working; the console opens only to a key with its scope and says
/// what the key may do.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ScopedKeyTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-000000000001"

  static func bearer(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

  /// The named keys of the server's database, through a ledger of its own.
  static func withKeys<Result: Sendable>(
    _ database: TestDatabase, _ body: @Sendable (APIKeys) async throws -> Result
  ) async throws -> Result {
    try await database.asWriter { client in
      try await body(
        APIKeys(
          ledger: try Ledger(
            client: client,
            configuration: LedgerConfiguration(
              bundleId: SignedFixtures.bundleId, environments: [.sandbox],
              trustedRoots: H.pki.trustedRoots, catalog: H.catalog),
            logger: H.logger)))
    }
  }

  static func makeKeys(_ database: TestDatabase, _ keys: [(String, Set<APIKeyScope>)])
    async throws -> [String]
  {
    try await withKeys(database) { made in
      var result: [String] = []
      for (name, scopes) in keys {
        result.append(try await made.create(name: name, scopes: scopes).key)
      }
      return result
    }
  }

  static func revoke(_ database: TestDatabase, _ name: String) async throws {
    try await withKeys(database) { try await $0.revoke(name: name) }
  }

  /// Every write operation of the served OpenAPI document, its path parameters filled in.
  static func writeRoutes() throws -> [(HTTPRequest.Method, String)] {
    let document = try JSONDecoder().decode(
      JSONValue.self,
      from: Data(
        contentsOf: URL(fileURLWithPath: #filePath)
          .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
          .appendingPathComponent("Sources/StoreLedgerServer/openapi.json")))
    guard case .object(let paths)? = document["paths"] else { return [] }
    let values = [
      "{token}": token, "{productId}": "gems.100", "{id}": "00000000-0000-4000-8000-0000000000aa",
      "{offerId}": "offer", "{originalTransactionId}": "1000", "{seatClaimId}": "claim-1",
      "{requestIdentifier}": "00000000-0000-4000-8000-0000000000bb", "{transactionId}": "1000",
    ]
    var routes: [(HTTPRequest.Method, String)] = []
    for (template, item) in paths.sorted(by: { $0.key < $1.key })
    where template != "/v1/notifications/appstore" {
      guard case .object(let operations) = item else { continue }
      for method in ["post", "put", "patch", "delete"] where operations[method] != nil {
        if template == "/v1/consumption-requests/dry-run" { continue }
        var path = template
        for (name, value) in values { path = path.replacingOccurrences(of: name, with: value) }
        routes.append((HTTPRequest.Method(rawValue: method.uppercased())!, path))
      }
    }
    return routes
  }

  @Test func aReadKeyIsRefusedOnEveryWriteRouteAndAWriteKeyCannotRead() async throws {
    try await H.withServer { client, database in
      let keys = try await Self.makeKeys(
        database, [("dashboard", [.read]), ("backend", [.write]), ("support", [.read, .console])])
      let (reader, writer, support) = (keys[0], keys[1], keys[2])
      let gems = try H.signed.transaction(
        F.transaction("7100", product: "gems.100", type: .consumable, purchased: 0, signed: 0))
      let stored = try await client.execute(
        uri: "/v1/transactions", method: .post, headers: Self.bearer(writer),
        body: H.json(["signedTransaction": gems]))
      #expect(stored.status == .created)
      let read = try await client.execute(
        uri: "/v1/accounts/\(Self.token)/consumables", method: .get, headers: Self.bearer(reader))
      #expect(read.status == .ok)
      let writerReads = try await client.execute(
        uri: "/v1/accounts/\(Self.token)/consumables", method: .get, headers: Self.bearer(writer))
      #expect(writerReads.status == .forbidden)
      #expect(try H.errorCode(writerReads) == "insufficient_scope")

      let before = try await database.eventCount()
      let routes = try Self.writeRoutes()
      #expect(routes.count >= 15, "\(routes.count) write routes")
      for (method, path) in routes {
        let refused = try await client.execute(
          uri: path, method: method, headers: Self.bearer(reader),
          body: H.json(["quantity": 1, "signedTransaction": gems]))
        #expect(refused.status == .forbidden, "\(method) \(path)")
        #expect(try H.errorCode(refused) == "insufficient_scope", "\(method) \(path)")
        #expect(String(buffer: refused.body).contains("dashboard"), "names the key")
      }
      #expect(try await database.eventCount() == before, "nothing written")
      // The dry run of a refund policy records nothing: a read key may run it.
      let dryRun = try await client.execute(
        uri: "/v1/consumption-requests/dry-run", method: .post, headers: Self.bearer(support),
        body: H.json(["policy": [String: Any]()]))
      #expect(dryRun.status != .forbidden && dryRun.status != .unauthorized)

      // Malformed and unknown named keys are no keys.
      let otherSecret = String(reader.dropLast()) + (reader.last == "A" ? "B" : "A")
      for bogus in ["slk_", "slk_0123456789abcdef_short", otherSecret] {
        let answer = try await client.execute(
          uri: "/v1/accounts/\(Self.token)/consumables", method: .get, headers: Self.bearer(bogus))
        #expect(answer.status == .unauthorized, "\(bogus.prefix(24))")
      }
      // Revoked: refused within a second (polled, never slept on).
      try await Self.revoke(database, "dashboard")
      let deadline = ContinuousClock.now + .seconds(5)
      var status = HTTPResponse.Status.ok
      while status != .unauthorized, ContinuousClock.now < deadline {
        status =
          try await client.execute(
            uri: "/v1/accounts/\(Self.token)/consumables", method: .get,
            headers: Self.bearer(reader)
          ).status
        if status != .unauthorized { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(status == .unauthorized)
    }
  }

  /// A path spelled another way that the router still matches (a doubled or a trailing
  /// slash) needs the scope of the route it matches: a backend key (`read,write`) can neither
  /// add or remove a relay target nor erase an account by any spelling, and nothing is
  /// written. An attack that once added a relay target pointing anywhere.
  @Test func everySpellingOfAnAdministratorsRouteNeedsTheAdministratorsScope() async throws {
    let (ledger, _, configuration) = try H.inMemory()
    let backend = try await APIKeys(ledger: ledger).create(
      name: "backend", scopes: [.read, .write]
    ).key
    let application = buildApplication(
      serving: ledger, configuration: configuration, logger: H.logger)
    let target = "00000000-0000-4000-8000-0000000000aa"
    let attempts: [(HTTPRequest.Method, String)] =
      ["/v1/relays", "/v1/relays/", "/v1//relays", "//v1/relays", "/v1/relays//", "/v1/relays?x=1"]
      .map { (.post, $0) }
      + ["/v1/relays/\(target)", "/v1/relays/\(target)/", "/v1//relays/\(target)"].map {
        (.delete, $0)
      }
      + [
        "/v1/accounts/\(Self.token)/erasure", "/v1/accounts/\(Self.token)/erasure/",
        "/v1/accounts/\(Self.token)//erasure", "/v1//accounts/\(Self.token)/erasure",
      ].map { (.post, $0) }
    try await application.test(.router) { client in
      var refused = 0
      for (method, path) in attempts {
        let answer = try await client.execute(
          uri: path, method: method, headers: Self.bearer(backend),
          body: H.json(["url": "http://127.0.0.1:9/steal", "name": "x", "reason": "x"]))
        // Either the router matches no route, or the route's scope refuses the key.
        #expect(
          answer.status == .forbidden || answer.status == .notFound, "\(method) \(path)")
        if answer.status == .forbidden {
          refused += 1
          #expect(try H.errorCode(answer) == "insufficient_scope", "\(method) \(path)")
        }
      }
      #expect(refused >= 9, "\(refused) of \(attempts.count) spellings reached a route")
      let targets = try await client.execute(
        uri: "/v1/relays", method: .get, headers: Self.bearer(backend))
      #expect(!String(buffer: targets.body).contains("steal"), "no relay target was added")
    }
    // The rule itself, by route template.
    #expect(APIKeyMiddleware<LedgerRequestContext>.scope(of: .post, route: "/v1/relays") == .admin)
    #expect(
      APIKeyMiddleware<LedgerRequestContext>.scope(of: .delete, route: "/v1/relays/{id}") == .admin)
    #expect(
      APIKeyMiddleware<LedgerRequestContext>.scope(of: .post, route: "/apps/{app}/v1/relays/")
        == .admin)
    #expect(
      APIKeyMiddleware<LedgerRequestContext>.scope(
        of: .post, route: "/v1/accounts/{token}/erasure") == .admin)
    #expect(
      APIKeyMiddleware<LedgerRequestContext>.scope(of: .post, route: "/v1/transactions") == .write)
    #expect(
      APIKeyMiddleware<LedgerRequestContext>.scope(
        of: .post, route: "/v1/consumption-requests/dry-run") == .read)
  }

  /// Every documented operation with a key of each scope, by every spelling of its path the
  /// router might still match (a trailing slash, a doubled slash, a percent-encoded letter,
  /// capitals): a key without the operation's scope is refused (403, or no route at all), a
  /// key with it is never answered 401 or 403. The table itself is the document's security
  /// requirements, checked against the roles: erasure and relay targets need `admin`, reads
  /// and the refund policy's dry run `read`, everything else `write`.
  @Test func theScopeMatrixHoldsForEveryRouteKeyAndSpelling() async throws {
    let admin: Set<String> = [
      "POST /v1/relays", "DELETE /v1/relays/{name}", "POST /v1/accounts/{token}/erasure",
    ]
    let open: Set<String> = [
      "POST /v1/notifications/appstore", "GET /health", "GET /metrics",
      "GET /openapi.json",
    ]
    let operations = DocumentedRoutes.shared.documented.filter { !open.contains($0) }
    #expect(operations.count >= 55, "\(operations.count) operations")
    var table: [(HTTPRequest.Method, String, APIKeyScope)] = []
    for operation in operations {
      let parts = operation.split(separator: " ").map(String.init)
      let expected: APIKeyScope =
        admin.contains(operation)
        ? .admin
        : parts[0] == "GET" || operation == "POST /v1/consumption-requests/dry-run" ? .read : .write
      let documented = DocumentedRoutes.shared.scope(parts[0], template: parts[1])
      #expect(
        documented == expected,
        "\(operation) is documented as needing \(String(describing: documented))")
      table.append((HTTPRequest.Method(rawValue: parts[0])!, parts[1], expected))
    }
    let (ledger, _, configuration) = try H.inMemory()
    var keys: [(APIKeyScope, String)] = []
    for scope in APIKeyScope.allCases {
      keys.append(
        (
          scope,
          try await APIKeys(ledger: ledger).create(name: "only-\(scope)", scopes: [scope]).key
        ))
    }
    let application = buildApplication(
      serving: ledger, configuration: configuration, logger: H.logger)
    let values = [
      "{token}": Self.token, "{productId}": "gems.100",
      "{id}": "00000000-0000-4000-8000-0000000000aa",
      "{offerId}": "offer", "{originalTransactionId}": "1000", "{seatClaimId}": "claim-1",
      "{requestIdentifier}": "00000000-0000-4000-8000-0000000000bb", "{transactionId}": "1000",
      "{entitlement}": "pro", "{orderId}": "ORDER1",
      "{grantId}": "00000000-0000-4000-8000-0000000000cc",
      "{name}": "target",
    ]
    try await application.test(.router) { [table, keys] client in
      var refusedPlainly = 0
      for (method, template, needed) in table {
        var path = template
        for (name, value) in values { path = path.replacingOccurrences(of: name, with: value) }
        #expect(!path.contains("{"), "\(template): a parameter without a test value")
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let encodedLast =
          "%" + String(format: "%02X", last.utf8.first ?? 0x61) + String(last.dropFirst())
        let spellings = [
          path, path + "/", path.replacingOccurrences(of: "/v1/", with: "/v1//"),
          String(path.dropLast(last.count)) + encodedLast, path.uppercased(),
        ]
        for (scope, key) in keys {
          for (index, spelling) in spellings.enumerated() {
            let answer = try await client.execute(
              uri: spelling, method: method, headers: Self.bearer(key),
              body: H.json(["url": "http://127.0.0.1:9/steal", "name": "x", "reason": "x"]))
            let label = "\(method) \(spelling) with a \(scope) key (needs \(needed))"
            #expect(answer.status != .unauthorized, "\(label)")
            if scope == needed {
              #expect(answer.status != .forbidden, "\(label): \(String(buffer: answer.body))")
            } else {
              #expect(
                [.forbidden, .notFound, .methodNotAllowed].contains(answer.status),
                "\(label): \(answer.status)")
              if index == 0 {
                #expect(answer.status == .forbidden, "\(label)")
                refusedPlainly += 1
              }
            }
          }
        }
      }
      #expect(refusedPlainly == table.count * 3)
    }
  }

  /// The console's point is the key's scope, not storage: an in-process server on the
  /// in-memory storage (whose responses are not followed through redirects).
  @Test func theConsoleOpensOnlyToAConsoleKeyAndSaysWhatItMayDo() async throws {
    let (ledger, _, configuration) = try H.inMemory()
    let keys = [
      try await APIKeys(ledger: ledger).create(name: "dashboard", scopes: [.read]).key,
      try await APIKeys(ledger: ledger).create(name: "support", scopes: [.read, .console]).key,
    ]
    let application = buildApplication(
      serving: ledger, configuration: configuration, logger: H.logger)
    try await application.test(.router) { client in
      let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
      let refused = try await client.execute(
        uri: "/console/sign-in", method: .post, headers: form,
        body: ByteBuffer(string: "key=\(keys[0])"))
      #expect(refused.status == .unauthorized)
      #expect(String(buffer: refused.body).contains("may not open the console"))
      #expect(refused.headers[.setCookie] == nil)
      let accepted = try await client.execute(
        uri: "/console/sign-in", method: .post, headers: form,
        body: ByteBuffer(string: "key=\(keys[1])"))
      #expect(accepted.status == .seeOther, "\(String(buffer: accepted.body).suffix(600))")
      let cookie = String(try #require(accepted.headers[.setCookie]?.split(separator: ";").first))
      let overview = try await client.execute(
        uri: "/console", method: .get, headers: [.cookie: cookie])
      #expect(overview.status == .ok)
      #expect(String(buffer: overview.body).contains("Key support: read, console"))
      // Revoking the key closes its sessions.
      try await APIKeys(ledger: ledger).revoke(name: "support")
      let deadline = ContinuousClock.now + .seconds(5)
      var status = HTTPResponse.Status.ok
      while status == .ok, ContinuousClock.now < deadline {
        status = try await client.execute(uri: "/console", method: .get, headers: [.cookie: cookie])
          .status
        if status == .ok { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(status == .seeOther, "back to sign-in")
    }
  }
}
