import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerPostgres

/// The server: one application for `storeledger serve` and for the tests. Each app's
/// PostgreSQL pool, account projector, refund worker and change deliverer run as services of
/// the application, so they start and stop with it; they all log to `logger`. `onServerRunning` learns the port it
/// listens on (useful with port 0).
public func buildApplication(
  configuration: ServerConfiguration, logger: Logger, metrics: ServerMetrics = ServerMetrics(),
  onServerRunning: @escaping @Sendable (Int?) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
  if configuration.routesByApp { metrics.labelApps() }
  let apps = try configuration.apps.map {
    try RunningApp($0, configuration: configuration, metrics: metrics, logger: logger)
  }
  let router = buildRouter(
    apps: apps, configuration: configuration, metrics: metrics, logger: logger)
  var application = Application(
    router: router,
    configuration: ApplicationConfiguration(
      address: .hostname(configuration.host, port: configuration.port),
      serverName: "storeledger"),
    services: apps.flatMap(\.services),
    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port) },
    logger: logger)
  if configuration.migrateOnStart {
    application.beforeServerStarts {
      for app in apps {
        guard let hosts = app.hosts else { continue }
        let client = try await hosts.located(within: .seconds(60))
        let report = try await SchemaMigrator(client: client, logger: logger).migrate()
        logger.info(
          "schema migrated", metadata: ["app": "\(app.name)", "applied": "\(report.applied)"])
      }
    }
  }
  return application
}

/// The server's routes over a ledger the caller made (for example on the in-memory storage), as
/// one app named by `configuration`'s first, with its projector when the configuration runs
/// one. The HTTP contract's in-process tests use it where the database is not the point.
package func buildApplication(
  serving ledger: Ledger, configuration: ServerConfiguration, logger: Logger,
  metrics: ServerMetrics = ServerMetrics()
) -> some ApplicationProtocol {
  let app = RunningApp(
    name: configuration.apps.first?.name ?? "default", ledger: ledger,
    runsProjector: configuration.runsProjector, metrics: metrics, logger: logger)
  var single = configuration
  single.apps = Array(configuration.apps.prefix(1))
  return Application(
    router: buildRouter(apps: [app], configuration: single, metrics: metrics, logger: logger),
    configuration: ApplicationConfiguration(serverName: "storeledger"), services: app.services,
    logger: logger)
}

func buildRouter(
  apps: [RunningApp], configuration: ServerConfiguration, metrics: ServerMetrics, logger: Logger
) -> Router<LedgerRequestContext> {
  let router = Router(context: LedgerRequestContext.self)
  router.add(
    middleware: ErrorAndMetricsMiddleware(
      metrics: metrics, app: configuration.routesByApp ? "" : apps[0].name))
  OperationsController(
    hosts: apps.compactMap(\.hosts), replicas: apps.compactMap(\.ledger.storage.replicas),
    metrics: metrics,
    logger: logger
  )
  .register(on: router)
  let sessions = ConsoleSessions(apiKeys: configuration.apiKeys)
  let throttle = AuthenticationThrottle(
    policy: configuration.authenticationLimits, logger: logger
  ) { kind in
    metrics.authenticationAlarm(app: configuration.routesByApp ? "" : apps[0].name, kind: kind)
  }
  guard configuration.routesByApp else {
    apps[0].register(
      on: router.group(), configuration: configuration, sessions: sessions,
      throttle: throttle)
    return router
  }
  router.add(middleware: AppRoutingMiddleware(apps: apps.map(\.name)))
  for app in apps {
    app.register(
      on: router.group(RouterPath("apps/\(app.name)")), prefix: "/apps/\(app.name)",
      configuration: configuration, sessions: sessions,
      throttle: throttle)
  }
  if apps.count == 1 {
    apps[0].register(
      on: router.group(), configuration: configuration, sessions: sessions,
      throttle: throttle)
  } else {
    SharedIngestController(apps: apps, bodyLimit: configuration.bodyLimit, metrics: metrics)
      .register(
        on: router.group().add(
          middleware: RequestValidationMiddleware<LedgerRequestContext>(
            routes: .shared, bodyLimit: configuration.bodyLimit)),
        ring: APIKeyRing(
          configured: configuration.apiKeys, keys: nil, throttle: throttle,
          clients: ClientAddress(trustedProxies: configuration.trustedProxies)))
    router.get("/console") { _, _ in ConsolePage.appList(apps.map(\.name)) }
  }
  return router
}
