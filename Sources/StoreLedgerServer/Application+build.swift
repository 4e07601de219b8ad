import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerPostgres

/// The server: one application for `storeledger serve` and for the tests. The PostgreSQL
/// pool and the account projector run as services of the application, so they start and stop
/// with it. `onServerRunning` learns the port it listens on (useful with port 0).
public func buildApplication(
  configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
  onServerRunning: @escaping @Sendable (Int?) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
  let logger = {
    var logger = Logger(label: "storeledger.server")
    logger.logLevel = configuration.logLevel
    return logger
  }()
  let client = PostgresClient(configuration: configuration.database, backgroundLogger: logger)
  let appended = WakeUpSignal()
  let ledger = try Ledger(
    client: client, configuration: configuration.ledger, logger: logger, wakeUp: appended)
  var services: [any Service] = [client]
  if configuration.runsProjector {
    let projector = AccountProjector(ledger: ledger, wakeUp: appended, logger: logger)
    metrics.attach(projector)
    services.append(AccountProjectorService(projector: projector))
  }
  let apple = try appleClient(configuration, logger: logger)
  // Without a configured policy the worker still answers operators (the default policy
  // sends nothing on its own: it assumes no consent).
  let worker = apple.map {
    ConsumptionWorker(
      ledger: ledger, client: $0,
      configuration: configuration.consumption ?? ConsumptionWorkerConfiguration(policy: .init()),
      logger: logger)
  }
  if let worker, configuration.consumption != nil {
    services.append(ConsumptionWorkerService(worker: worker))
  }
  if let delivery = configuration.changeDelivery, !delivery.endpoints.isEmpty {
    metrics.attachChangeDelivery()
    services.append(
      ChangeDeliveryService(
        deliverer: ChangeDeliverer(ledger: ledger, configuration: delivery, logger: logger)))
  }
  let router = buildRouter(
    ledger: ledger, client: client, configuration: configuration, metrics: metrics,
    worker: worker, apple: apple, logger: logger)
  var application = Application(
    router: router,
    configuration: ApplicationConfiguration(
      address: .hostname(configuration.host, port: configuration.port),
      serverName: "storeledger"),
    services: services,
    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port) },
    logger: logger)
  if configuration.migrateOnStart {
    application.beforeServerStarts {
      let report = try await SchemaMigrator(client: client, logger: logger).migrate()
      logger.info("schema migrated", metadata: ["applied": "\(report.applied)"])
    }
  }
  return application
}

/// The App Store Server API client, when credentials are configured.
func appleClient(_ configuration: ServerConfiguration, logger: Logger) throws
  -> AppStoreServerAPIClient?
{
  guard let settings = configuration.appStoreAPI else { return nil }
  return AppStoreServerAPIClient(
    configuration: settings.api, verifier: try SignedDataVerifier(configuration: settings.verifier),
    logger: logger)
}

func buildRouter(
  ledger: Ledger, client: PostgresClient, configuration: ServerConfiguration,
  metrics: ServerMetrics, worker: ConsumptionWorker? = nil, apple: AppStoreServerAPIClient? = nil,
  logger: Logger
) -> Router<BasicRequestContext> {
  let router = Router(context: BasicRequestContext.self)
  router.add(middleware: ErrorAndMetricsMiddleware(metrics: metrics))
  OperationsController(client: client, metrics: metrics, logger: logger).register(on: router)
  IngestController(ledger: ledger, metrics: metrics, bodyLimit: configuration.bodyLimit)
    .registerWebhook(on: router)
  let protected = router.group().add(middleware: APIKeyMiddleware(keys: configuration.apiKeys))
  IngestController(
    ledger: ledger, metrics: metrics, bodyLimit: configuration.bodyLimit, apple: apple
  ).registerCommands(on: protected)
  AccountController(ledger: ledger).register(on: protected)
  ConsumptionController(ledger: ledger, worker: worker).register(on: protected)
  ChangesController(ledger: ledger).register(on: protected)
  SupportController(
    ledger: ledger, apple: apple, logger: logger,
    environment: configuration.appStoreAPI?.verifier.environment
  ).register(on: protected)
  metrics.attach(ledger)
  return router
}
