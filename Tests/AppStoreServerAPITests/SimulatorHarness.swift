import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StoreLedgerCore
import StoreLedgerTestSupport

/// A simulated App Store Server API on loopback and a client pointed at it.
enum SimulatorHarness {
  static let pki = try! TestPKI()
  static let bundleId = "com.example.app"
  static let privateKey = P256.Signing.PrivateKey()
  static let apiKey = APIKey(
    keyId: "SIMKEY0001", issuerId: "6a3f9c1e-0000-4000-8000-000000000001", bundleId: bundleId,
    privateKey: privateKey)
  static let logger = {
    var logger = Logger(label: "test.simulator")
    logger.logLevel = .error
    return logger
  }()

  static func store() -> SimulatedAppStore {
    SimulatedAppStore(
      app: SimulatedApp(bundleId: bundleId, appAppleId: 1_234_567_890),
      signer: pki, now: LedgerFixtures.t(400))
  }

  /// A simulated year as `configuration` lays it out, played into a store of this app.
  static func year(_ configuration: SimulationConfiguration) -> (Simulation, SimulatedAppStore) {
    let simulation = Simulation(configuration)
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: bundleId, appAppleId: 1_234_567_890), signer: pki,
      now: configuration.start)
    simulation.apply(to: store, through: configuration.end)
    return (simulation, store)
  }

  static func verifier(trusting roots: TestPKI = pki) throws -> SignedDataVerifier {
    try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: roots.trustedRoots, bundleId: bundleId, environment: .sandbox))
  }

  /// Runs `body` with a client of the simulator serving `store`, and the simulator's URL.
  static func withClient(
    _ store: SimulatedAppStore, rateLimit: Double? = nil, internalErrors: Int = 0,
    key: APIKey = apiKey,
    maximumAttempts: Int = 4, verifier: SignedDataVerifier? = nil, hasNotificationURL: Bool = true,
    _ body: @Sendable (AppStoreServerAPIClient, String) async throws -> Void
  ) async throws {
    let application = buildSimulatorApplication(
      store: store,
      configuration: SimulatorConfiguration(
        apiKeys: [apiKey.keyId: privateKey.publicKey], issuerId: apiKey.issuerId,
        rateLimit: rateLimit, internalErrors: internalErrors,
        hasNotificationURL: hasNotificationURL),
      logger: logger)
    let checker = try verifier ?? Self.verifier()
    try await application.test(.live) { client in
      let url = "http://127.0.0.1:\(client.port!)"
      let api = AppStoreServerAPIClient(
        configuration: AppStoreServerAPIConfiguration(
          baseURL: url, key: key, maximumAttempts: maximumAttempts,
          initialBackoff: .milliseconds(20)),
        verifier: checker, logger: logger)
      try await body(api, url)
    }
  }

  /// `count` transactions of one customer: subscriptions in two groups, consumables,
  /// non-consumables, family-shared ones, some refunded; ids Apple-shaped.
  static func customerHistory(count: Int, base: Int64 = 2_000_000_100_000_000)
    -> [JWSTransactionDecodedPayload]
  {
    (0..<count).map { index in
      let kind = index % 5
      let products = ["pro.monthly", "premium.monthly", "gems.100", "lifetime", "pro.yearly"]
      let types: [ProductType] = [
        .autoRenewableSubscription, .autoRenewableSubscription, .consumable, .nonConsumable,
        .autoRenewableSubscription,
      ]
      let original = kind == 2 || kind == 3 ? base + Int64(index) : base + Int64(kind)
      var transaction = LedgerFixtures.transaction(
        String(base + Int64(index)), original: String(original), product: products[kind],
        type: types[kind], purchased: Double(index) / 2,
        expires: types[kind] == .autoRenewableSubscription ? Double(index) / 2 + 30 : nil,
        group: kind == 1 ? "group.premium" : "group.pro",
        ownership: index % 7 == 0 ? .familyShared : .purchased,
        revoked: index % 11 == 0 ? Double(index) / 2 + 1 : nil)
      transaction.environment = .sandbox
      return transaction
    }
  }
}
