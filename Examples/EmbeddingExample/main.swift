// Embedding StoreLedger in your own Hummingbird server: the App Store webhook, the purchase
// intake from your app, and the entitlement check your endpoints make, on your PostgreSQL.
//
//   DATABASE_URL=postgres://storeledger_writer@127.0.0.1/app \
//   BUNDLE_ID=com.example.app APP_APPLE_ID=1234567890 swift run EmbeddingExample
//
// Run `storeledger migrate --database-url …` once (as a role that may create the schema), or
// call SchemaMigrator at start-up as below.

import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

let environment = ProcessInfo.processInfo.environment
let logger = Logger(label: "example")
let database = try DatabaseURL(
  environment["DATABASE_URL"] ?? "postgres://storeledger_writer@127.0.0.1:5432/app")
let client = PostgresClient(configuration: database.clientConfiguration, backgroundLogger: logger)

// Trusts Apple Root CA - G3 by default; Production data needs your app's Apple ID.
let ledger = try Ledger(
  client: client,
  configuration: LedgerConfiguration(
    bundleId: environment["BUNDLE_ID"] ?? "com.example.app",
    appAppleId: environment["APP_APPLE_ID"].flatMap(Int64.init),
    catalog: ProductCatalog(products: [
      "pro.monthly": .init(entitlements: ["pro"]),
      "pro.yearly": .init(entitlements: ["pro"]),
      "coins.100": .init(entitlements: ["coins"], units: 100),
    ])),
  logger: logger)

let router = Router()

// App Store Server Notifications V2: answer 200 only once the notification is stored, so
// Apple retries anything that was not.
router.post("/appstore/notifications") { request, context -> HTTPResponse.Status in
  struct Body: Decodable { let signedPayload: String }
  let body = try await request.decode(as: Body.self, context: context)
  do {
    _ = try await ledger.ingest(notification: body.signedPayload)
    return .ok
  } catch let error as LedgerError
    where error.code == .verificationFailed || error.code == .invalidPayload
  {
    return .badRequest  // not Apple's, or not for this app: Apple will not send it again
  } catch {
    return .serviceUnavailable  // the database is away: let Apple retry
  }
}

// Your app forwards the signed transaction right after a purchase, with the user's account.
router.post("/purchases") { request, context -> HTTPResponse.Status in
  struct Body: Decodable {
    let signedTransaction: String
    let account: String
  }
  let body = try await request.decode(as: Body.self, context: context)
  _ = try await ledger.ingest(
    signedTransaction: body.signedTransaction, appAccountToken: body.account)
  return .created
}

// The check your own endpoints make before serving paid content.
router.get("/accounts/{account}/pro") { _, context -> String in
  let account = try context.parameters.require("account")
  let entitlements = try await ledger.entitlements(for: account)
  return entitlements.contains { $0.entitlement == "pro" && $0.active } ? "yes" : "no"
}

/// Keeps the account views current in the background; queries are right without it.
struct ProjectorService: Service {
  let projector: AccountProjector
  func run() async throws {
    try await cancelWhenGracefulShutdown { await projector.run() }
  }
}

var application = Application(
  router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)),
  services: [
    client, ProjectorService(projector: AccountProjector(ledger: ledger, logger: logger)),
  ],
  logger: logger)
application.beforeServerStarts {
  _ = try await SchemaMigrator(client: client, logger: logger).migrate()
}
try await application.runService()
