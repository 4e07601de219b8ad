import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger

/// Everything `buildApplication(configuration:)` needs: where to listen, the database, the
/// ledger's identity and trust, and the API keys.
public struct ServerConfiguration: Sendable {
  public var host: String
  public var port: Int
  /// The engine's PostgreSQL connection (as the writer role).
  public var database: PostgresClient.Configuration
  public var ledger: LedgerConfiguration
  /// Bearer keys for every endpoint except the webhook, `/health` and `/openapi.json`. Each
  /// is a server-to-server key that sees every account.
  public var apiKeys: Set<String>
  /// The largest request body accepted. Apple's notifications are well under 64 KiB.
  public var bodyLimit: Int
  /// Applies the schema migrations before serving.
  public var migrateOnStart: Bool
  /// Runs the account projector in this process. Several servers may each run one (they
  /// share the checkpoint); queries are correct without any, only slower.
  public var runsProjector: Bool
  public var logLevel: Logger.Level
  /// App Store Server API credentials: the write side (answers to refund requests) needs
  /// them; without them requests are recorded and listed, never answered.
  public var appStoreAPI: AppStoreAPISettings?
  /// Runs the refund-request worker in this process (with `appStoreAPI`). Several servers
  /// may each run one: a request is claimed by one of them at a time.
  public var consumption: ConsumptionWorkerConfiguration?
  /// Delivers the change feed to these webhooks from this process. Several servers may each
  /// deliver: a change is claimed by one of them at a time.
  public var changeDelivery: ChangeDeliveryConfiguration?

  public init(
    host: String = "127.0.0.1", port: Int = 8080, database: PostgresClient.Configuration,
    ledger: LedgerConfiguration, apiKeys: Set<String>, bodyLimit: Int = 256 * 1024,
    migrateOnStart: Bool = false, runsProjector: Bool = true, logLevel: Logger.Level = .info,
    appStoreAPI: AppStoreAPISettings? = nil, consumption: ConsumptionWorkerConfiguration? = nil,
    changeDelivery: ChangeDeliveryConfiguration? = nil
  ) {
    self.changeDelivery = changeDelivery
    self.appStoreAPI = appStoreAPI
    self.consumption = consumption
    self.host = host
    self.port = port
    self.database = database
    self.ledger = ledger
    self.apiKeys = apiKeys
    self.bodyLimit = bodyLimit
    self.migrateOnStart = migrateOnStart
    self.runsProjector = runsProjector
    self.logLevel = logLevel
  }
}

/// Where and as whom the server calls the App Store Server API, and how it verifies what
/// comes back.
public struct AppStoreAPISettings: Sendable {
  public var api: AppStoreServerAPIConfiguration
  public var verifier: VerifierConfiguration

  public init(api: AppStoreServerAPIConfiguration, verifier: VerifierConfiguration) {
    self.api = api
    self.verifier = verifier
  }
}
