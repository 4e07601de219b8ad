import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerPostgres

/// Everything `buildApplication(configuration:)` needs: where to listen, the apps it serves
/// (each with its database, ledger, trust and credentials), and the API keys.
public struct ServerConfiguration: Sendable {
  public var host: String
  public var port: Int
  /// The apps served. One app configured by flags is served at `/v1/…`; apps from an apps
  /// file (``routesByApp``) each at `/apps/{name}/v1/…`, and the shared webhook routes each
  /// notification by the bundle id it names.
  public var apps: [ServedApp]
  /// Whether the apps came from an apps file: routes under `/apps/{name}`, an `app` label on
  /// every metric, and changes that name their app.
  public var routesByApp: Bool
  /// Bearer keys for every endpoint except the webhook, `/health` and `/openapi.json`. Each
  /// is a server-to-server key that sees every account of every app.
  public var apiKeys: Set<String>
  /// The largest request body accepted. Apple's notifications are well under 64 KiB.
  public var bodyLimit: Int
  /// Applies the schema migrations (to every app's database) before serving.
  public var migrateOnStart: Bool
  /// The addresses of the proxies in front of the server whose `X-Forwarded-For` names the
  /// client (``ClientAddress``): failed API keys are counted by that client's address, not by
  /// the proxy's. Empty: every peer is the client.
  public var trustedProxies: [String] = []
  /// How many failed API keys lock a key or a client address, and for how long.
  public var authenticationLimits = AuthenticationLimits()
  /// Runs the account projector in this process. Several servers may each run one (they
  /// share the checkpoint); queries are correct without any, only slower.
  public var runsProjector: Bool

  /// One app, configured by flags: served at `/v1/…` as it always was.
  public init(
    host: String = "127.0.0.1", port: Int = 8080, database: DatabaseURL,
    ledger: LedgerConfiguration, apiKeys: Set<String>, bodyLimit: Int = 256 * 1024,
    migrateOnStart: Bool = false, runsProjector: Bool = true,
    appStoreAPI: AppStoreAPISettings? = nil, consumption: ConsumptionWorkerConfiguration? = nil,
    changeDelivery: ChangeDeliveryConfiguration? = nil
  ) {
    let app = ServedApp(
      name: ledger.bundleId, database: database, ledger: ledger, appStoreAPI: appStoreAPI,
      consumption: consumption, changeDelivery: changeDelivery)
    self.init(
      host: host, port: port, apps: [app], routesByApp: false, apiKeys: apiKeys,
      bodyLimit: bodyLimit, migrateOnStart: migrateOnStart, runsProjector: runsProjector)
  }

  /// Several apps (from an apps file, `routesByApp`), or one.
  public init(
    host: String = "127.0.0.1", port: Int = 8080, apps: [ServedApp], routesByApp: Bool = true,
    apiKeys: Set<String>, bodyLimit: Int = 256 * 1024, migrateOnStart: Bool = false,
    runsProjector: Bool = true
  ) {
    self.host = host
    self.port = port
    self.apps = apps
    self.routesByApp = routesByApp
    self.apiKeys = apiKeys
    self.bodyLimit = bodyLimit
    self.migrateOnStart = migrateOnStart
    self.runsProjector = runsProjector
  }

  /// Whether `text` is an IP address, as ``trustedProxies`` takes them.
  public static func isIPAddress(_ text: String) -> Bool {
    ClientAddress.canonical(text) != nil
  }

  /// The first app's (with one app: the app's) settings.
  public var database: DatabaseURL {
    get { apps[0].database }
    set { apps[0].database = newValue }
  }

  public var ledger: LedgerConfiguration {
    get { apps[0].ledger }
    set { apps[0].ledger = newValue }
  }

  public var appStoreAPI: AppStoreAPISettings? {
    get { apps[0].appStoreAPI }
    set { apps[0].appStoreAPI = newValue }
  }

  public var consumption: ConsumptionWorkerConfiguration? {
    get { apps[0].consumption }
    set { apps[0].consumption = newValue }
  }

  public var changeDelivery: ChangeDeliveryConfiguration? {
    get { apps[0].changeDelivery }
    set { apps[0].changeDelivery = newValue }
  }

  public var relays: RelayConfiguration? {
    get { apps[0].relays }
    set { apps[0].relays = newValue }
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
