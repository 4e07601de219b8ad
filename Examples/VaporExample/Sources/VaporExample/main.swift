// Embedding StoreLedger in your own Vapor server: the App Store webhook, the purchase intake
// from your app, and the entitlement check your endpoints make, on your PostgreSQL.
//
//   MIGRATION_DATABASE_URL=postgres://postgres@127.0.0.1/app \
//   DATABASE_URL=postgres://storeledger_writer:SECRET@127.0.0.1/app \
//   BUNDLE_ID=com.example.app APP_APPLE_ID=1234567890 swift run VaporExample serve
//
// The schema's owner migrates (MIGRATION_DATABASE_URL, at start-up); the writer role of
// DATABASE_URL serves, reading and appending only.

import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import Vapor

// A LedgerError thrown from a route answers with the library's own status (401, 400, 404,
// 409, 503…) through Vapor's ErrorMiddleware: never a 500 for a refused request.
extension LedgerError: AbortError {
  public var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: httpStatus) }
  public var reason: String { "\(code): \(message)" }
}

struct Notification: Content { let signedPayload: String }
struct Purchase: Content {
  let signedTransaction: String
  let account: String
}

let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "example")
logger.logLevel = .warning
let database = try DatabaseURL(
  environment["DATABASE_URL"] ?? "postgres://storeledger_writer@127.0.0.1:5432/app")
let client = PostgresClient(configuration: database.clientConfiguration, backgroundLogger: logger)
let roots = try environment["ROOT_CERTIFICATE"].map {
  try TrustedRoots(derEncoded: [Array(try Data(contentsOf: URL(fileURLWithPath: $0)))])
}
let ledger = try Ledger(
  client: client,
  configuration: LedgerConfiguration(
    bundleId: environment["BUNDLE_ID"] ?? "com.example.app",
    appAppleId: environment["APP_APPLE_ID"].flatMap(Int64.init),
    trustedRoots: roots ?? .apple,
    catalog: ProductCatalog(products: [
      "pro.monthly": .init(entitlements: ["pro"]),
      "coins.100": .init(entitlements: ["coins"], units: 100),
    ])),
  logger: logger)

// The schema's owner migrates; the writer serves.
if let owner = environment["MIGRATION_DATABASE_URL"] {
  _ = try await SchemaMigrator.migrate(try DatabaseURL(owner), logger: logger)
}

let env = try Environment.detect()
let app = try await Application.make(env)
app.logger.logLevel = .warning
app.http.server.configuration.hostname = "127.0.0.1"
app.http.server.configuration.port = Int(environment["PORT"] ?? "") ?? 8080

// The pool runs as long as the application; the projector keeps account views warm.
let pool = Task { await client.run() }
let projector = Task { await AccountProjector(ledger: ledger, logger: logger).run() }

app.post("appstore", "notifications") { request async throws -> HTTPStatus in
  _ = try await ledger.ingest(
    notification: try request.content.decode(Notification.self).signedPayload)
  return .ok
}
app.post("purchases") { request async throws -> HTTPStatus in
  let purchase = try request.content.decode(Purchase.self)
  _ = try await ledger.ingest(
    signedTransaction: purchase.signedTransaction, appAccountToken: purchase.account)
  return .created
}
app.get("accounts", ":account", "pro") { request async throws -> String in
  let account = try request.parameters.require("account")
  let entitlements = try await ledger.entitlements(for: account)
  return entitlements.contains { $0.entitlement == "pro" && $0.active } ? "yes" : "no"
}

do {
  try await app.execute()
} catch {
  app.logger.report(error: error)
}
projector.cancel()
pool.cancel()
try await app.asyncShutdown()
