import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import Synchronization
import UnixSignals

/// The demo's work on a database: the simulated App Store and the StoreLedger server run as
/// services next to the workflow, which plays the customers through the real webhook,
/// repairs what was lost, audits, measures and sums up; then everything stops.
struct DemoRun: Sendable {
  struct Settings: Sendable {
    var customers: Int
    var months: Int
    var seed: UInt64
    var drop: Double
    var duplicate: Double
    var daySeconds: Double
    var queries: Int
    var quiet: Bool
    /// With `--keep`: called with the summary, the console's address and a key once the demo
    /// is done; the server then goes on serving until Ctrl-C.
    var onServing: (@Sendable (DemoSummary, String, String) -> Void)? = nil
  }

  static let bundleId = "com.example.app"
  /// For the in-process servers: what goes wrong surfaces as the workflow's errors, and a
  /// shutdown with requests in flight is not worth a line.
  static let silent = {
    var logger = Logger(label: "storeledger.demo.servers")
    logger.logLevel = .critical
    return logger
  }()
  static let appAppleId: Int64 = 1_234_567_890

  let settings: Settings
  let database: DatabaseURL
  /// Where the test root certificate and the catalog are written, for querying afterwards.
  let directory: String
  let logger: Logger

  /// Runs the demo; nil when interrupted (Ctrl-C, SIGTERM) before the summary.
  func run() async throws -> DemoSummary? {
    let pki = try TestPKI()
    try write(pki: pki)
    try await record(pki: pki)
    let privateKey = P256.Signing.PrivateKey()
    let apiKey = APIKey(
      keyId: "DEMO\(settings.seed)", issuerId: UUID().uuidString.lowercased(),
      bundleId: Self.bundleId, privateKey: privateKey)
    // Short enough to type: 80 random bits.
    let bearer =
      "demo-"
      + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
      .prefix(20)
    let ledgerConfiguration = LedgerConfiguration(
      bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: [.sandbox],
      trustedRoots: pki.trustedRoots, catalog: DemoCatalog.catalog)
    let simulation = Simulation(
      SimulationConfiguration(
        customers: settings.customers, months: settings.months, seed: settings.seed,
        start: Self.start(months: settings.months)))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: Self.bundleId, appAppleId: Self.appAppleId),
      signer: pki, now: simulation.configuration.start)
    let ports = PortsBox()
    var serverConfiguration = ServerConfiguration(
      host: "127.0.0.1", port: 0, database: database,
      ledger: ledgerConfiguration, apiKeys: [bearer])
    // The demo's staging backend fails now and then: retried within a second, not minutes.
    var relays = RelayConfiguration()
    relays.initialDelay = .milliseconds(100)
    relays.maximumDelay = .seconds(1)
    relays.targetsInterval = .milliseconds(200)
    serverConfiguration.relays = relays
    let server = try buildApplication(
      configuration: serverConfiguration,
      logger: Self.silent, onServerRunning: { port in ports.set(server: port) })
    let simulator = buildSimulatorApplication(
      store: store,
      configuration: SimulatorConfiguration(
        apiKeys: [apiKey.keyId: privateKey.publicKey], issuerId: apiKey.issuerId),
      logger: Self.silent, onServerRunning: { port in ports.set(simulator: port) })
    let workflow = DemoWorkflow(
      settings: settings, database: database, ledgerConfiguration: ledgerConfiguration,
      simulation: simulation, store: store, pki: pki, apiKey: apiKey, bearer: bearer,
      ports: ports, logger: logger)
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [
          .init(service: server), .init(service: simulator),
          .init(
            service: workflow,
            successTerminationBehavior: settings.onServing == nil
              ? .gracefullyShutdownGroup : .ignore),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
    return workflow.result.value
  }
}

extension DemoRun {
  /// The simulated months end at the start of the last UTC day that began at least six hours
  /// ago (today's, or yesterday's just after midnight): the App Store signs a few things up to
  /// an hour after the last day (seat notifications, late renewals), and all of it must be in
  /// the past, so the console and the commands, which answer at the present, see the year as
  /// it ended.
  static func start(months: Int, now: Date = Date()) -> Timestamp {
    let day = SimulationConfiguration.day
    let settled = Int64(now.timeIntervalSince1970 * 1000) - 6 * 3_600_000
    let today = settled / day * day
    return Timestamp(milliseconds: today - Int64(months) * SimulationConfiguration.period)
  }

  /// The demo's app, recorded in its database: `storeledger entitlements TOKEN
  /// --database-url URL` then answers with the demo's catalog, roots and environment.
  private func record(pki: TestPKI) async throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let catalog = String(decoding: try encoder.encode(DemoCatalog.catalog), as: UTF8.self)
    let recorded = RecordedAppConfiguration(
      bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: ["Sandbox"],
      catalogJSON: catalog, rootCertificates: [pki.rootDER], sandboxEntitles: true,
      rescindedConsentEndsEntitlements: false, recordedBy: "demo")
    try await PostgresClient.withRunningClient(database, logger: Self.silent) { client in
      try await recorded.replace(on: client, logger: Self.silent)
    }
  }

  private func write(pki: TestPKI) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Data(pki.rootDER).write(to: URL(fileURLWithPath: directory + "/root.der"))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(DemoCatalog.catalog).write(
      to: URL(fileURLWithPath: directory + "/catalog.json"))
  }
}

/// The ports the two servers listen on, once they do.
final class PortsBox: Sendable {
  private let ports = Mutex<(server: Int?, simulator: Int?)>((nil, nil))

  func set(server port: Int?) { ports.withLock { $0.server = port } }
  func set(simulator port: Int?) { ports.withLock { $0.simulator = port } }

  /// Waits until both servers listen.
  func both() async throws -> (server: Int, simulator: Int) {
    while true {
      let (server, simulator) = ports.withLock { $0 }
      if let server, let simulator { return (server, simulator) }
      try await Task.sleep(for: .milliseconds(20))
    }
  }
}
