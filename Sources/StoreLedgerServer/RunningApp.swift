import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// One served app at run time: its pool, ledger and services, and its routes.
struct RunningApp: Sendable {
  let name: String
  /// The app's database hosts; nil for a ledger on other storage
  /// (``init(name:ledger:runsProjector:metrics:logger:)``).
  let hosts: DatabaseHosts?
  let ledger: Ledger
  let services: [any Service]
  let metrics: AppMetrics
  let worker: ConsumptionWorker?
  let apple: AppStoreServerAPIClient?
  let verifierEnvironment: AppStoreEnvironment?
  /// Where the app's signed checkpoints are published, when they are.
  let checkpoints: CheckpointDirectory?
  let logger: Logger

  init(
    _ app: ServedApp, configuration: ServerConfiguration, metrics: ServerMetrics, logger: Logger
  ) throws {
    var logger = logger
    if configuration.routesByApp { logger[metadataKey: "app"] = "\(app.name)" }
    var ledgerConfiguration = app.ledger
    if configuration.routesByApp { ledgerConfiguration.app = app.name }
    let hosts = try DatabaseHosts.primary(app.database, logger: logger)
    let appended = WakeUpSignal()
    let replicaHosts = app.readReplicas.map {
      ReadReplica(name: $0.name, hosts: DatabaseHosts.replica($0.url, logger: logger))
    }
    let replicas =
      replicaHosts.isEmpty
      ? nil
      : ReadReplicas(
        primary: hosts, replicas: replicaHosts, settings: app.replicaSettings, logger: logger)
    let ledger = try Ledger(
      hosts: hosts, configuration: ledgerConfiguration, logger: logger, wakeUp: appended,
      replicas: replicas)
    var services: [any Service] = hosts.clients + replicaHosts.flatMap(\.hosts.clients)
    for watched in [hosts] + replicaHosts.map(\.hosts) where watched.asks {
      services.append(HostsWatchService(hosts: watched))
    }
    if let replicas { services.append(ReplicaMonitorService(replicas: replicas)) }
    if configuration.runsProjector {
      let projector = AccountProjector(ledger: ledger, wakeUp: appended, logger: logger)
      metrics.attach(projector, app: app.name)
      services.append(AccountProjectorService(projector: projector))
      services.append(
        RevenueProjectorService(
          projector: RevenueProjector(ledger: ledger, wakeUp: appended, logger: logger)))
    }
    let apple = try app.appStoreAPI.map {
      AppStoreServerAPIClient(
        configuration: $0.api, verifier: try SignedDataVerifier(configuration: $0.verifier),
        logger: logger)
    }
    // Without a configured policy the worker still answers operators (the default policy
    // sends nothing on its own: it assumes no consent).
    let worker = apple.map {
      ConsumptionWorker(
        ledger: ledger, client: $0,
        configuration: app.consumption ?? ConsumptionWorkerConfiguration(policy: .init()),
        logger: logger)
    }
    if let worker, app.consumption != nil {
      services.append(ConsumptionWorkerService(worker: worker))
    }
    if let delivery = app.changeDelivery, !delivery.endpoints.isEmpty {
      metrics.attachChangeDelivery(app: app.name)
      services.append(
        ChangeDeliveryService(
          deliverer: ChangeDeliverer(ledger: ledger, configuration: delivery, logger: logger)))
    }
    if configuration.runsProjector, let relays = app.relays {
      services.append(
        RelayService(
          relayer: Relayer(
            ledger: ledger, wakeUp: appended, configuration: relays, logger: logger)))
    }
    if let checkpoints = app.checkpoints, let key = checkpoints.key {
      services.append(
        CheckpointService(
          checkpointer: LogCheckpointer(
            ledger: ledger, key: key, directory: checkpoints.directory,
            origin: checkpoints.origin, logger: logger),
          forwarder: checkpoints.webhooks.isEmpty
            ? nil : CheckpointForwarder(urls: checkpoints.webhooks, logger: logger),
          interval: checkpoints.interval, logger: logger))
    }
    metrics.attach(ledger, app: app.name)
    self.name = app.name
    self.checkpoints = app.checkpoints?.directory
    self.hosts = hosts
    self.ledger = ledger
    self.services = services
    self.metrics = metrics.app(app.name)
    self.worker = worker
    self.apple = apple
    self.verifierEnvironment = app.appStoreAPI?.verifier.environment
    self.logger = logger
  }

  /// An app whose ledger the caller made (on any storage): its routes and, when
  /// `runsProjector`, its projector (which polls: no append signal reaches it); no pool, worker
  /// or Apple client.
  init(name: String, ledger: Ledger, runsProjector: Bool, metrics: ServerMetrics, logger: Logger) {
    metrics.attach(ledger, app: name)
    var services: [any Service] = []
    if runsProjector {
      let projector = AccountProjector(
        ledger: ledger, pollInterval: .milliseconds(100), logger: logger)
      metrics.attach(projector, app: name)
      services.append(AccountProjectorService(projector: projector))
      services.append(
        RevenueProjectorService(
          projector: RevenueProjector(
            ledger: ledger, pollInterval: .milliseconds(100), logger: logger)))
    }
    self.name = name
    self.hosts = nil
    self.ledger = ledger
    self.services = services
    self.metrics = metrics.app(name)
    self.worker = nil
    self.apple = nil
    self.verifierEnvironment = nil
    self.checkpoints = nil
    self.logger = logger
  }

  /// The app's webhook, and behind the API keys its commands and queries, under `group`
  /// (whose path is `prefix`); the console beside them.
  func register(
    on group: RouterGroup<LedgerRequestContext>, prefix: String = "",
    configuration: ServerConfiguration, sessions: ConsoleSessions,
    throttle: AuthenticationThrottle
  ) {
    // The server's keys, and the app's named keys (each app's in its own database); failures
    // counted by the server's one throttle, so guesses spread over apps add up.
    let ring = APIKeyRing(
      configured: configuration.apiKeys, keys: APIKeys(ledger: ledger), throttle: throttle,
      clients: ClientAddress(trustedProxies: configuration.trustedProxies))
    ConsoleController(
      ledger: ledger, sessions: sessions, ring: ring, metrics: metrics,
      base: "\(prefix)/console", cookiePath: configuration.routesByApp ? "/apps" : "/console",
      app: configuration.routesByApp ? name : nil, apple: apple,
      appleEnvironment: verifierEnvironment
    ).register(on: group)
    let validation = RequestValidationMiddleware<LedgerRequestContext>(
      routes: .shared, bodyLimit: configuration.bodyLimit)
    ingest(bodyLimit: configuration.bodyLimit).registerWebhook(
      on: group.group().add(middleware: validation))
    let protected = group.group().add(middleware: APIKeyMiddleware(ring: ring))
      .add(middleware: validation)
    ingest(bodyLimit: configuration.bodyLimit).registerCommands(on: protected)
    AccountController(ledger: ledger).register(on: protected)
    ConsumptionController(
      requests: ConsumptionRequests(ledger: ledger), consents: RefundConsents(ledger: ledger),
      worker: worker
    ).register(on: protected)
    ChangesController(
      feed: ChangeFeedReader(ledger: ledger), deliveries: ChangeDeliveryLog(ledger: ledger)
    ).register(on: protected)
    MetricsController(metrics: LedgerMetrics(ledger: ledger)).register(on: protected)
    CheckpointsController(directory: checkpoints).register(on: protected)
    ErasureController(erasure: AccountErasure(ledger: ledger)).register(on: protected)
    ListsController(lists: AccountLists(ledger: ledger)).register(on: protected)
    GrantsController(grants: SupportGrants(ledger: ledger)).register(on: protected)
    RelaysController(relays: Relays(ledger: ledger)).register(on: protected)
    SearchController(
      support: SupportQueries(ledger: ledger), aliases: AccountAliases(ledger: ledger)
    ).register(on: protected)
    SupportController(
      actions: AppleActions(ledger: ledger),
      receipts: apple.map { client in
        ReceiptImport(
          ledger: ledger, client: client,
          environment: verifierEnvironment ?? ledger.configuration.environments.first
            ?? .production, logger: logger)
      }, apple: apple, logger: logger
    ).register(on: protected)
    SeatsController(seats: SeatLedger(ledger: ledger, apple: apple)).register(on: protected)
  }

  func ingest(bodyLimit: Int) -> IngestController {
    IngestController(ledger: ledger, metrics: metrics, bodyLimit: bodyLimit, apple: apple)
  }
}
