import AppStoreVerification
import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport

struct ServerBenchmarkRun {
  let options: ServerBenchmarkOptions
  let logger: Logger = {
    var logger = Logger(label: "storeledger.benchmark")
    logger.logLevel = .error
    return logger
  }()
  static let apiKey = "bench-key"
  let pki = try! TestPKI()

  func run() async throws {
    if let formation = options.formationURL {
      try await HostsMeasurement(run: self, formation: formation).measure()
      return
    }
    let database = try await BenchmarkDatabase.create(
      on: options.databaseURL!,
      setupSQL: [
        "CREATE TABLE public.plain_events (LIKE storeledger.events INCLUDING ALL)",
        "GRANT SELECT, INSERT ON public.plain_events TO storeledger_writer",
      ], logger: logger)
    do {
      try await measure(on: database)
      try await database.drop()
    } catch {
      try? await database.drop()
      throw error
    }
  }

  private func configuration(_ database: BenchmarkDatabase) -> ServerConfiguration {
    var postgres = database.writerURL
    postgres.maximumConnections = 40
    return ServerConfiguration(
      host: "127.0.0.1", port: options.port, database: postgres,
      ledger: ledgerConfiguration, apiKeys: [Self.apiKey])
  }

  var ledgerConfiguration: LedgerConfiguration {
    LedgerConfiguration(
      bundleId: SignedFixtures.bundleId, environments: [.sandbox],
      trustedRoots: pki.trustedRoots,
      catalog: ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])]))
  }

  private func measure(on database: BenchmarkDatabase) async throws {
    let application = try buildApplication(configuration: configuration(database), logger: logger)
    let services = ServiceGroup(
      configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
    let server = Task { try await services.run() }
    let load = LoadClient(base: "http://127.0.0.1:\(options.port)", connections: options.clients)
    do {
      try await waitUntilHealthy(load)
      try await IngestMeasurement(run: self, load: load, database: database).measure()
      try await QueryMeasurement(run: self, load: load, database: database).measure()
    } catch {
      print("failed: \(error)")
    }
    try await load.shutdown()
    await services.triggerGracefulShutdown()
    try await server.value
    if let replica = options.readDatabaseURL {
      try await ReplicaMeasurement(run: self, database: database, replicaServer: replica)
        .measure()
    }
  }

  func waitUntilHealthy(_ load: LoadClient) async throws {
    for _ in 0..<100 {
      if (try? await load.send(.GET, "/health")) == 200 { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw ServerBenchmarkOptions.UsageError(description: "the server did not become healthy")
  }

  /// A Sandbox subscription purchase for customer `index`, live for 30 days from yesterday.
  func transaction(_ index: Int, prefix: String) -> JWSTransactionDecodedPayload {
    let now = Timestamp(Date()).milliseconds
    // Query accounts are 0..<N, the webhook's from 10,000,000 on: disjoint, UUIDs both.
    let account = prefix == "q" ? index : 10_000_000 + index
    var transaction = LedgerFixtures.transaction(
      "\(prefix)\(index)", purchased: 0, expires: 30, token: LedgerFixtures.account(account))
    transaction.purchaseDate = Timestamp(milliseconds: now - LedgerFixtures.day)
    transaction.signedDate = transaction.purchaseDate
    transaction.expiresDate = Timestamp(milliseconds: now + 29 * LedgerFixtures.day)
    // Apple's transactions carry the app download since 2025: each is a new customer here, so
    // every ingest pays the identity index's statement (its worst case).
    if options.appTransactionIds { transaction.appTransactionId = "\(7_000_000_000 + account)" }
    return transaction
  }

  /// Webhook bodies of SUBSCRIBED notifications for new customers `first..<first+count`
  /// (notification UUIDs `named-…`, transactions `prefix…`): accounts disjoint from every
  /// other phase's.
  func freshBodies(count: Int, first: Int, named: String, prefix: String) throws -> [[UInt8]] {
    let signed = SignedFixtures(pki: pki)
    return try (first..<first + count).map { index in
      let payload = try signed.notification(
        .subscribed, .initialBuy, uuid: "\(named)-\(index)",
        transaction: transaction(index, prefix: prefix))
      return Array(#"{"signedPayload":"\#(payload)"}"#.utf8)
    }
  }
}
