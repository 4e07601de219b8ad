import AppStoreServerAPI
import Hummingbird
import Logging

/// The simulated App Store Server API as a Hummingbird application, for `storeledger
/// simulate` and the tests.
public func buildSimulatorApplication(
  store: SimulatedAppStore, configuration: SimulatorConfiguration, logger: Logger,
  onServerRunning: @escaping @Sendable (Int?) async -> Void = { _ in }
) -> some ApplicationProtocol {
  let router = Router(context: BasicRequestContext.self)
  ServerAPIController(
    store: store,
    tokens: APITokenValidator(
      keys: configuration.apiKeys, issuerId: configuration.issuerId,
      bundleId: store.app.bundleId),
    limiter: configuration.rateLimit.map(RateLimiter.init(requestsPerSecond:)),
    internalErrors: Countdown(configuration.internalErrors),
    hasNotificationURL: configuration.hasNotificationURL
  ).register(on: router)
  return Application(
    router: router,
    configuration: ApplicationConfiguration(
      address: .hostname(configuration.host, port: configuration.port),
      serverName: "appstore-simulator"),
    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port) },
    logger: logger)
}
