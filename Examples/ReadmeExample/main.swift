import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerMemory
import StoreLedgerPostgres

/// What the README shows: a ledger on your pool, a notification in, an answer out.
func hasPro(
  _ account: String, after signedPayload: String?, client: PostgresClient, logger: Logger
) async throws -> Bool {
  // snippet:begin
  let ledger = try Ledger(
    client: client,
    configuration: LedgerConfiguration(
      bundleId: "com.example.app", appAppleId: 1234567890,
      catalog: ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])])),
    logger: logger)
  if let signedPayload { _ = try await ledger.ingest(notification: signedPayload) }  // webhook
  let entitlements = try await ledger.entitlements(for: account)
  return entitlements.contains { $0.entitlement == "pro" && $0.active }
  // snippet:end
}

/// The same ledger in a test of yours: every port in memory, nothing to start.
func hasProInATest(_ account: String, logger: Logger) async throws -> Bool {
  // snippet:begin
  let ledger = try Ledger(
    storage: InMemoryLedgerStorage(),
    configuration: LedgerConfiguration(bundleId: "com.example.app", appAppleId: 1234567890),
    logger: logger)
  // snippet:end
  return try await ledger.entitlements(for: account).contains { $0.entitlement == "pro" }
}

let logger = Logger(label: "app")
let database = try DatabaseURL(
  ProcessInfo.processInfo.environment["DATABASE_URL"]
    ?? "postgres://storeledger_writer@127.0.0.1:5432/app")
let client = PostgresClient(configuration: database.clientConfiguration, backgroundLogger: logger)

// The client's pool runs beside the work that uses it (or as a Service of your server).
try await withThrowingDiscardingTaskGroup { group in
  group.addTask { await client.run() }
  let account = "9f1c2b7e-4c1d-4e8a-9b0f-2d7c1e5a3b64"
  let signedPayload = ProcessInfo.processInfo.environment["SIGNED_NOTIFICATION"]
  let pro = try await hasPro(account, after: signedPayload, client: client, logger: logger)
  print("\(account) has pro: \(pro)")
  print("in memory: \(try await hasProInATest(account, logger: logger))")
  group.cancelAll()
}
