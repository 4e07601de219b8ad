// Embedding StoreLedger in your own Hummingbird server: the App Store webhook, the purchase
// intake from your app, and the entitlement check your endpoints make, on your PostgreSQL.
//
//   MIGRATION_DATABASE_URL=postgres://postgres@127.0.0.1/app \
//   DATABASE_URL=postgres://storeledger_writer:SECRET@127.0.0.1/app \
//   BUNDLE_ID=com.example.app APP_APPLE_ID=1234567890 swift run EmbeddingExample
//
// The schema is created and changed by its owner: at start-up this migrates with
// MIGRATION_DATABASE_URL (a superuser, or a role that may create roles and schemas), then
// serves as the writer role of DATABASE_URL, which may only read and append. Without
// MIGRATION_DATABASE_URL, run `storeledger migrate` as the owner first.

import AppStoreVerification
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

let environment = ProcessInfo.processInfo.environment
var logger = Logger(label: "example")
logger.logLevel = .warning
let database = try DatabaseURL(
  environment["DATABASE_URL"] ?? "postgres://storeledger_writer@127.0.0.1:5432/app")
let client = PostgresClient(configuration: database.clientConfiguration, backgroundLogger: logger)

// Trusts Apple Root CA - G3 unless ROOT_CERTIFICATE names another root (a DER file, such as
// Xcode's StoreKit testing certificate); Production data needs your app's Apple ID.
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
      "pro.yearly": .init(entitlements: ["pro"]),
      "coins.100": .init(entitlements: ["coins"], units: 100),
    ])),
  logger: logger)

// A LedgerError thrown from a route answers with the library's own status (401 for data
// Apple did not sign, 400 for a bad request, 409 for what the state does not allow, 503
// when the database is away): never a 500 for a refused request.
extension LedgerError: HTTPResponseError {
  public var status: HTTPResponse.Status { .init(code: httpStatus) }
  public func response(from request: Request, context: some RequestContext) throws -> Response {
    let body = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
    return Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(string: body)))
  }
}

let router = Router()

// App Store Server Notifications V2: 200 once stored, so Apple retries anything that was not
// (a 503 while the database is away); a notification that does not verify is 401.
router.post("/appstore/notifications") { request, context -> HTTPResponse.Status in
  struct Body: Decodable { let signedPayload: String }
  let body = try await request.decode(as: Body.self, context: context)
  _ = try await ledger.ingest(notification: body.signedPayload)
  return .ok
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
  func run() async {
    await cancelWhenGracefulShutdown { await projector.run() }
  }
}

// The schema's owner migrates; the writer serves.
if let owner = environment["MIGRATION_DATABASE_URL"] {
  _ = try await SchemaMigrator.migrate(try DatabaseURL(owner), logger: logger)
}

let port = Int(environment["PORT"] ?? "") ?? 8080
let application = Application(
  router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
  services: [
    client, ProjectorService(projector: AccountProjector(ledger: ledger, logger: logger)),
  ],
  onServerRunning: { channel in
    print("listening on port \(channel.localAddress?.port ?? port)")
  },
  logger: logger)
try await application.runService()
