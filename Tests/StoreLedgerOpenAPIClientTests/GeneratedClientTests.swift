import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// A client generated from the served OpenAPI document (swift-openapi-generator, written into
/// `Generated/` by scripts/openapi-client, which scripts/test checks is current) calls every
/// account route of a live server: what the document describes is what a generated client can
/// send and decode.
@Suite(.serialized) struct GeneratedClientTests {
  static let pki = try! TestPKI()
  static let signed = SignedFixtures(pki: pki)
  static let apiKey = "sk-generated-0123456789"
  static let logger: Logger = {
    var logger = Logger(label: "test.generated-client")
    logger.logLevel = .critical
    return logger
  }()
  static let owner = "00000000-0000-4000-8000-00000000c0de"
  static let other = "00000000-0000-4000-8000-00000000beef"

  /// Adds the bearer key to every request.
  struct Bearer: ClientMiddleware {
    let key: String

    func intercept(
      _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
      next: (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
      var request = request
      request.headerFields[.authorization] = "Bearer \(key)"
      return try await next(request, body, baseURL)
    }
  }

  @Test func theGeneratedClientCallsEveryAccountRoute() async throws {
    try await TestDatabase.withMigrated { database in
      let configuration = ServerConfiguration(
        database: database.writerURL,
        ledger: LedgerConfiguration(
          bundleId: SignedFixtures.bundleId, environments: [.sandbox],
          trustedRoots: Self.pki.trustedRoots,
          catalog: ProductCatalog(products: [
            "pro.monthly": .init(entitlements: ["pro"]),
            "gems.100": .init(entitlements: ["gems"], units: 100),
          ])),
        apiKeys: [Self.apiKey])
      let application = try buildApplication(configuration: configuration, logger: Self.logger)
      try await application.test(.live) { testClient in
        let port = try #require(testClient.port)
        let client = Client(
          serverURL: try #require(URL(string: "http://127.0.0.1:\(port)")),
          transport: AsyncHTTPClientTransport(), middlewares: [Bearer(key: Self.apiKey)])
        try await Self.callEveryAccountRoute(client)
      }
    }
  }

  static func callEveryAccountRoute(_ client: Client) async throws {
    typealias F = LedgerFixtures
    let token = Self.owner
    // Writes: a subscription and gems forwarded by the app, a link, a debit.
    for transaction in [
      F.transaction("3001", purchased: 0, expires: 36_500, token: token),
      F.transaction("3002", product: "gems.100", type: .consumable, purchased: 0, token: token),
    ] {
      let stored = try await client.ingestTransaction(
        body: .json(.init(signedTransaction: try Self.signed.transaction(transaction))))
      #expect(try stored.created.body.json.duplicate == false)
    }
    let link = try await client.linkPurchase(
      path: .init(token: token), body: .json(.init(originalTransactionId: "3001")))
    #expect(try link.created.body.json.streamId.isEmpty == false)
    let refused = try await client.linkPurchase(
      path: .init(token: Self.other), body: .json(.init(originalTransactionId: "3001")))
    #expect(try refused.conflict.body.json.error.code == .purchaseHeldByAnotherAccount)
    let debit = try await client.debitConsumable(
      path: .init(token: token, productId: "gems.100"), headers: .init(idempotencyKey: "g-1"),
      body: .json(.init(quantity: 30)))
    #expect(try debit.created.body.json.duplicate == false)

    // Reads.
    let entitlements = try await client.getEntitlements(path: .init(token: token))
    let names = try entitlements.ok.body.json.entitlements.filter(\.active).map(\.entitlement)
    #expect(Set(names) == ["pro", "gems"])
    let explained = try await client.explainEntitlement(
      path: .init(token: token, entitlement: "pro"))
    #expect(try explained.ok.body.json.answer == "active")
    let subscriptions = try await client.getSubscriptions(path: .init(token: token))
    #expect(try subscriptions.ok.body.json.subscriptions.map(\.originalTransactionId) == ["3001"])
    let balances = try await client.getConsumables(path: .init(token: token))
    #expect(try balances.ok.body.json.consumables.first?.balance == 70)
    let purchases = try await client.getPurchases(path: .init(token: token))
    #expect(try purchases.ok.body.json.purchases.isEmpty)
    let revocations = try await client.getRevocations(path: .init(token: token))
    #expect(try revocations.ok.body.json.revocations.isEmpty)
    let events = try await client.getEvents(path: .init(token: token))
    #expect(try events.ok.body.json.events.count == 4)
    let offers = try await client.getOffers(path: .init(token: token))
    _ = try offers.ok.body.json
    // The signing routes need App Store Server API credentials, which this server lacks.
    let signature = try await client.signPromotionalOffer(
      path: .init(token: token, offerId: "SPRING50"), body: .json(.init(productId: "pro.monthly")))
    #expect(try signature.notImplemented.body.json.error.code == .notConfigured)
    let eligibility = try await client.signIntroductoryOfferEligibility(
      path: .init(token: token), body: .json(.init(productId: "pro.monthly")))
    #expect(try eligibility.notImplemented.body.json.error.code == .notConfigured)
  }
}
