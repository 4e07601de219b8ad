import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import ArgumentParser
import Crypto
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import StoreLedgerCore
import UnixSignals

struct SimulateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract:
      "Run a local App Store: seeded customers, the Server API, notifications to a webhook.",
    discussion: """
      Plays --customers customers over --months months (one simulated day lasts --day-seconds) \
      from --seed: the same seed gives the same customers and payloads. Serves the App Store \
      Server API on --host:--port and posts every V2 notification to --webhook, retrying on \
      Apple's schedule (Production only). Everything is signed by a test PKI made for the run.

      Writes into --out: root.der (trust it: storeledger serve --root-certs DIR/root.der) and \
      api-key.p8 (the In-App Purchase key the API accepts; key id and issuer id are printed). \
      Prints progress once per simulated month; keeps serving the API afterwards until \
      SIGINT/SIGTERM unless --exit-when-done.

      Example:
        storeledger simulate --customers 1000 --months 12 --seed 7 \\
          --webhook http://127.0.0.1:8080/v1/notifications/appstore
      """)

  @Option(help: "How many customers.") var customers = 1000
  @Option(help: "How many 30-day months.") var months = 12
  @Option(help: "The seed of every choice.") var seed: UInt64 = 7
  @Option(help: "Where notifications are posted; none: no delivery.") var webhook: String?
  @Option(help: "Sandbox (one attempt each) or Production (retries).") var environment = "Sandbox"
  @Option(name: .customLong("bundle-id")) var bundleId = "com.example.app"
  @Option(name: .customLong("app-apple-id")) var appAppleId: Int64 = 1_234_567_890
  @Option var host = "127.0.0.1"
  @Option(help: "0 picks a free port.") var port = 8090
  @Option(name: .customLong("day-seconds"), help: "Wall seconds per simulated day.")
  var daySeconds = 0.05
  @Option(help: "Directory for root.der and api-key.p8.") var out = "simulator"
  @Option(help: "Share of deliveries dropped (0–1).") var drop = 0.0
  @Option(help: "Share of deliveries sent twice (0–1).") var duplicate = 0.0
  @Flag(help: "Send notifications due together in random order.") var reorder = false
  @Option(name: .customLong("rate-limit"), help: "API requests per second per endpoint.")
  var rateLimit: Double?
  @Flag(name: .customLong("exit-when-done"), help: "Stop once the last notification is out.")
  var exitWhenDone = false
  @Option(
    help: """
      Days of Get Notification History served back from the simulated clock, older start \
      dates refused with 4000012 (default: Apple's, 30 in the Sandbox and 180 in \
      Production); 0 serves the whole simulated past.
      """)
  var historyDays: Int64?
  @Flag(help: "Print progress as JSON lines (one object per simulated month and a final one).")
  var json = false

  func validate() throws {
    guard customers > 0, months > 0, daySeconds >= 0 else {
      throw ValidationError("--customers and --months must be positive, --day-seconds not negative")
    }
    guard ["Sandbox", "Production"].contains(environment) else {
      throw ValidationError("--environment must be Sandbox or Production")
    }
    guard (0...1).contains(drop), (0...1).contains(duplicate) else {
      throw ValidationError("--drop and --duplicate are shares from 0 to 1")
    }
  }

  func run() async throws {
    var logger = Logger(label: "storeledger.simulate")
    logger.logLevel = .warning
    let pki = try TestPKI()
    let key = P256.Signing.PrivateKey()
    let keyId = "SIM" + String(seed)
    let issuerId = "5f6e7d8c-0000-4000-8000-" + String(format: "%012llu", seed % 1_000_000_000_000)
    try write(pki: pki, key: key)
    let simulation = Simulation(
      SimulationConfiguration(
        customers: customers, months: months, seed: seed,
        start: SimulationConfiguration.start(months: months, endingBy: Timestamp(Date()))))
    let store = SimulatedAppStore(
      app: SimulatedApp(
        bundleId: bundleId, appAppleId: appAppleId,
        environment: AppStoreEnvironment(rawValue: environment),
        notificationHistoryDays: historyDays.map { $0 > 0 ? $0 : nil }
          ?? SimulatedApp.applesHistoryDays(AppStoreEnvironment(rawValue: environment))),
      signer: pki, now: simulation.configuration.start)
    let day = Duration.milliseconds(Int64(daySeconds * 1000))
    let deliverer = webhook.map { url in
      NotificationDeliverer(
        store: store, webhookURL: url, hour: day / 24,
        faults: DeliveryFaults(
          dropFraction: drop, duplicateFraction: duplicate, reorder: reorder, seed: seed),
        logger: logger)
    }
    if !json {
      say(
        "simulating \(customers) customers over \(months) months (seed \(seed), "
          + "\(simulation.steps.count) App Store steps, \(environment))")
      say("API key: id \(keyId), issuer \(issuerId), \(out)/api-key.p8; root: \(out)/root.der")
    }
    // The simulation starts once the API serves (and has said where): with no pause between
    // days it would otherwise print progress before the API's address.
    let (serving, servingContinuation) = AsyncStream<Void>.makeStream()
    let application = buildSimulatorApplication(
      store: store,
      configuration: SimulatorConfiguration(
        host: host, port: port, apiKeys: [keyId: key.publicKey], issuerId: issuerId,
        rateLimit: rateLimit, hasNotificationURL: webhook != nil),
      logger: logger,
      onServerRunning: { [json] port in
        say(
          json
            ? #"{"apiURL":"http://\#(host):\#(port ?? 0)","keyId":"\#(keyId)","issuerId":"\#(issuerId)"}"#
            : "App Store Server API on http://\(host):\(port ?? 0)")
        servingContinuation.yield()
        servingContinuation.finish()
      })
    let runner = SimulationRunner(
      simulation: simulation, store: store, deliverer: deliverer, day: day)
    let services = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [
          .init(service: application),
          .init(
            service: SimulationService(
              runner: runner, json: json, serving: serving, keepDelivering: !exitWhenDone),
            successTerminationBehavior: exitWhenDone ? .gracefullyShutdownGroup : .ignore),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await services.run()
  }

  private func write(pki: TestPKI, key: P256.Signing.PrivateKey) throws {
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try Data(pki.rootDER).write(to: URL(fileURLWithPath: out + "/root.der"))
    try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: out + "/api-key.p8"))
  }

  /// Plays the simulation next to the API server.
  struct SimulationService: Service {
    let runner: SimulationRunner
    let json: Bool
    let serving: AsyncStream<Void>
    /// Serving on after the run: what the API creates is delivered too, as Apple does.
    let keepDelivering: Bool

    func run() async throws {
      for await _ in serving { break }
      try await runner.run { progress in
        if json, let line = try? CommandJSON.string(progress) {
          say(line)
          return
        }
        let counts =
          "\(progress.notifications) notifications, \(progress.delivered) delivered, "
          + "\(progress.failing) failing"
        say(
          progress.isFinal
            ? "done: \(progress.steps) steps, \(counts); the API keeps serving the customers"
            : "month \(progress.month)/\(progress.months): \(progress.steps) steps, \(counts)")
      }
      if keepDelivering { await cancelWhenGracefulShutdown { await runner.keepDelivering() } }
    }
  }
}

/// One line to standard output, written at once (also into a pipe or a log file, where
/// `print` would buffer it).
func say(_ line: String) {
  StandardStreams.out(line + "\n")
}
