import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// Two apps in one server, each with its own database: the shared webhook routes by bundle
/// id, the same appAccountToken is two accounts, and every metric says which app it counts.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SeveralAppsTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness
  static let liteBundle = "com.example.lite"
  static let token = "00000000-0000-4000-8000-0000000000a7"

  static func app(_ name: String, bundle: String, product: String, _ database: TestDatabase)
    -> ServedApp
  {
    ServedApp(
      name: name, database: database.writerURL,
      ledger: LedgerConfiguration(
        bundleId: bundle, environments: [.sandbox], trustedRoots: H.pki.trustedRoots,
        catalog: ProductCatalog(products: [product: .init(entitlements: [name])])))
  }

  /// Runs `body` against a server of the apps "pro" and "lite" over two new databases.
  static func withTwoApps(
    _ body: @Sendable (any TestClientProtocol, TestDatabase, TestDatabase) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated { pro in
      try await TestDatabase.withMigrated { lite in
        let configuration = ServerConfiguration(
          apps: [
            app("pro", bundle: SignedFixtures.bundleId, product: "pro.monthly", pro),
            app("lite", bundle: liteBundle, product: "lite.monthly", lite),
          ], apiKeys: [H.apiKey])
        let application = try buildApplication(
          configuration: configuration, logger: ServerHarness.logger)
        try await application.test(.ahc(.http)) { client in try await body(client, pro, lite) }
      }
    }
  }

  static func subscribed(_ id: String, bundle: String, product: String) throws -> String {
    try H.signed.notification(
      .subscribed, .initialBuy, uuid: "apps-\(id)",
      transaction: F.transaction(id, product: product, purchased: 0, expires: 3650, token: token),
      bundleId: bundle)
  }

  static func entitlements(_ client: any TestClientProtocol, _ prefix: String) async throws
    -> [String]
  {
    let response = try await client.execute(
      uri: "\(prefix)/v1/accounts/\(token)/entitlements", method: .get, headers: H.authorized)
    #expect(response.status == .ok)
    return (try H.value(response)["entitlements"]?.array ?? []).compactMap {
      if case .string(let name)? = $0["entitlement"] { name } else { nil }
    }
  }

  @Test func theSharedWebhookRoutesByBundleIdAndAccountsArePerApp() async throws {
    try await Self.withTwoApps { client, pro, lite in
      for payload in [
        try Self.subscribed("7000", bundle: SignedFixtures.bundleId, product: "pro.monthly"),
        try Self.subscribed("8000", bundle: Self.liteBundle, product: "lite.monthly"),
      ] {
        let posted = try await client.execute(
          uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody(payload))
        #expect(posted.status == .ok)
      }
      // One URL per app works too; the app's verifier refuses another app's data.
      let own = try await client.execute(
        uri: "/apps/lite/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try Self.subscribed("8100", bundle: Self.liteBundle, product: "lite.monthly")))
      #expect(own.status == .ok)
      let foreign = try await client.execute(
        uri: "/apps/pro/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try Self.subscribed("8200", bundle: Self.liteBundle, product: "lite.monthly")))
      #expect(foreign.status == .unauthorized)
      #expect(try H.errorCode(foreign) == "verification_failed")
      let transaction = try H.signed.pki.sign(
        {
          var payload = F.transaction(
            "8300", product: "lite.monthly", purchased: 1, expires: 3650, token: Self.token)
          payload.environment = .sandbox
          payload.bundleId = Self.liteBundle
          return payload
        }())
      let forwarded = try await client.execute(
        uri: "/v1/transactions", method: .post, headers: H.authorized,
        body: H.json(["signedTransaction": transaction]))
      #expect(forwarded.status == .created)

      #expect(try await H.eventCount(pro) == 1)
      #expect(try await H.eventCount(lite) == 3)
      #expect(try await Self.entitlements(client, "/apps/pro") == ["pro"])
      #expect(try await Self.entitlements(client, "/apps/lite") == ["lite"])
    }
  }

  @Test func unknownAppsAndMissingAppsAreClearErrorsThatStoreNothing() async throws {
    try await Self.withTwoApps { client, pro, lite in
      let stranger = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(try Self.subscribed("9000", bundle: "com.example.other", product: "x")))
      #expect(stranger.status == .notFound)
      #expect(try H.errorCode(stranger) == "unknown_app")
      let garbage = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post, body: H.webhookBody("not-a-jws"))
      #expect(garbage.status == .badRequest)
      let unnamed = try await client.execute(
        uri: "/v1/accounts/\(Self.token)/entitlements", method: .get, headers: H.authorized)
      #expect(unnamed.status == .badRequest)
      #expect(try H.errorCode(unnamed) == "app_required")
      let unknown = try await client.execute(
        uri: "/apps/nope/v1/accounts/\(Self.token)/entitlements", method: .get,
        headers: H.authorized)
      #expect(unknown.status == .notFound)
      #expect(try H.errorCode(unknown) == "unknown_app")
      let guarded = try await client.execute(
        uri: "/apps/pro/v1/accounts/\(Self.token)/entitlements", method: .get)
      #expect(guarded.status == .unauthorized)
      #expect(try await H.eventCount(pro) == 0)
      #expect(try await H.eventCount(lite) == 0)
      let health = try await client.execute(uri: "/health", method: .get)
      #expect(health.status == .ok)
      // Each app has its console; the shared one lists them.
      let chooser = try await client.execute(uri: "/console", method: .get)
      #expect(String(buffer: chooser.body).contains("/apps/lite/console"))
      let liteConsole = try await client.execute(uri: "/apps/lite/console/sign-in", method: .get)
      #expect(liteConsole.status == .ok)
      #expect(String(buffer: liteConsole.body).contains("StoreLedger · lite"))
      let document = try H.value(try await client.execute(uri: "/openapi.json", method: .get))
      #expect(
        document["servers"]?.array?.contains {
          $0["url"] == .string("http://127.0.0.1:8080/apps/{app}")
        }
          == true)
    }
  }

  /// A notification that names no app (here `UNCLAIM_SEATS` with only seat claim ids) cannot
  /// be routed by bundle id: every app whose verifier accepts it keeps it as unrouted evidence,
  /// where that app's operator sees it; a forged one is refused by all and stored by none.
  @Test func aNotificationNamingNoAppIsKeptByEveryAppItVerifiesFor() async throws {
    try await Self.withTwoApps { client, pro, lite in
      let members: [String: Any] = [
        "notificationType": "UNCLAIM_SEATS", "notificationUUID": "apps-unclaim-1",
        "version": "2.0", "signedDate": F.t(1).milliseconds,
        "unclaimInfo": ["unclaimSeatIds": ["5b0c2d4e-0000-4000-8000-000000000001"]],
      ]
      let json = Array(try JSONSerialization.data(withJSONObject: members))
      let answer = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(H.pki.sign(payloadJSON: json)))
      #expect(answer.status == .ok)
      #expect(try H.value(answer)["unrouted"] == .bool(true))
      #expect(try await H.eventCount(pro) == 1)
      #expect(try await H.eventCount(lite) == 1)
      let forged = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(try TestPKI().sign(payloadJSON: json)))
      #expect(forged.status == .unauthorized)
      #expect(try await H.eventCount(pro) == 1)
      #expect(try await H.eventCount(lite) == 1)
    }
  }

  /// Each app's changes come from its own feed and say which app they are of; every sample of
  /// /metrics carries an app label.
  @Test func changesAndMetricsNameTheirApp() async throws {
    try await Self.withTwoApps { client, _, _ in
      for (id, bundle, product) in [
        ("7100", SignedFixtures.bundleId, "pro.monthly"), ("8400", Self.liteBundle, "lite.monthly"),
      ] {
        let posted = try await client.execute(
          uri: "/v1/notifications/appstore", method: .post,
          body: H.webhookBody(try Self.subscribed(id, bundle: bundle, product: product)))
        #expect(posted.status == .ok)
      }
      for app in ["pro", "lite"] {
        let feed = try H.value(
          try await client.execute(
            uri: "/apps/\(app)/v1/changes?after=0&wait=20", method: .get, headers: H.authorized))
        let changes = feed["changes"]?.array ?? []
        #expect(!changes.isEmpty)
        #expect(changes.first?["position"] == .number(1), "each app's feed starts at 1")
        for change in changes {
          #expect(change["app"] == .string(app))
          #expect(change["appAccountToken"] == .string(Self.token))
        }
        let granted = changes.filter { $0["type"] == .string("entitlement.granted") }
        #expect(granted.map { $0["data"]?["entitlement"] } == [.string(app)])
      }
      let metrics = try await client.execute(uri: "/metrics", method: .get)
      let samples = String(buffer: metrics.body).split(separator: "\n").filter {
        !$0.hasPrefix("#")
      }
      #expect(samples.count > 20)
      #expect(
        samples.allSatisfy { $0.contains("app=\"") }, "\(samples.filter { !$0.contains("app=") })")
      for app in ["pro", "lite"] {
        #expect(
          samples.contains(
            #"storeledger_ingests_total{app="\#(app)",kind="notification",outcome="stored",notification_type="SUBSCRIBED"} 1"#
          ))
        #expect(
          samples.contains { $0.hasPrefix("storeledger_projector_events_total{app=\"\(app)\"}") })
        #expect(
          samples.contains {
            $0.hasPrefix(
              #"storeledger_http_requests_total{app="\#(app)",method="GET",route="/apps/\#(app)/v1/changes",status="200"}"#
            )
          })
      }
    }
  }
}
