import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport

/// A simulated App Store for a ledger on a real database: its Server API on loopback, a
/// client of it, and a webhook on loopback that ingests into the ledger.
enum SimulatedAppStoreHarness {
  static let pki = LedgerTests.pki
  static let privateKey = P256.Signing.PrivateKey()
  static let apiKey = APIKey(
    keyId: "RECOVERY01", issuerId: "6a3f9c1e-0000-4000-8000-000000000002",
    bundleId: "com.example.app", privateKey: privateKey)
  static let logger = {
    var logger = Logger(label: "test.recovery")
    logger.logLevel = .error
    return logger
  }()

  /// A Sandbox ledger for `com.example.app` trusting the tests' PKI, on a fresh database.
  static func withLedger(
    catalog: ProductCatalog = .empty, trusting roots: TestPKI = pki,
    environment: AppStoreEnvironment = .sandbox,
    _ body: @Sendable (Ledger, TestDatabase) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let ledger = try Ledger(
          client: client,
          configuration: LedgerConfiguration(
            bundleId: "com.example.app",
            appAppleId: environment == .production ? 1_234_567_890 : nil,
            environments: [environment], trustedRoots: roots.trustedRoots, catalog: catalog),
          logger: TestDatabase.logger)
        try await body(ledger, database)
      }
    }
  }

  /// The simulation played into a Sandbox store signed by the ledger tests' PKI.
  static func store(_ simulation: Simulation) -> SimulatedAppStore {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: pki,
      now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    return store
  }

  /// Runs `body` with a client of `store`'s Server API.
  static func withClient(
    _ store: SimulatedAppStore, internalErrors: Int = 0, maximumAttempts: Int = 4,
    _ body: @Sendable (AppStoreServerAPIClient) async throws -> Void
  ) async throws {
    let application = buildSimulatorApplication(
      store: store,
      configuration: SimulatorConfiguration(
        apiKeys: [apiKey.keyId: privateKey.publicKey], issuerId: apiKey.issuerId,
        internalErrors: internalErrors),
      logger: logger)
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: pki.trustedRoots, bundleId: "com.example.app",
        appAppleId: store.app.environment == .production ? store.app.appAppleId : nil,
        environment: store.app.environment))
    try await application.test(.live) { client in
      try await body(
        AppStoreServerAPIClient(
          configuration: AppStoreServerAPIConfiguration(
            baseURL: "http://127.0.0.1:\(client.port!)", key: apiKey,
            maximumAttempts: maximumAttempts),
          verifier: verifier, logger: logger))
    }
  }

  /// Runs `body` with the URL of a webhook that ingests into `ledger` and answers 200 once
  /// stored, else 503.
  static func withWebhook(_ ledger: Ledger, _ body: @Sendable (String) async throws -> Void)
    async throws
  {
    let router = Router()
    router.post("/hook") { request, _ -> HTTPResponse.Status in
      let bytes = try await request.body.collect(upTo: 1 << 20)
      guard
        let payload = try? JSONDecoder().decode(
          [String: String].self, from: Data(bytes.readableBytesView))["signedPayload"],
        (try? await ledger.ingest(notification: payload)) != nil
      else { return .serviceUnavailable }
      return .ok
    }
    try await Application(router: router, logger: logger).test(.live) { client in
      try await body("http://127.0.0.1:\(client.port!)/hook")
    }
  }
}
