import AppStoreVerification
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the HTTP server: the App Store webhook, transaction intake and account queries.",
    discussion: """
      Every setting comes from a flag or, when the flag is absent, from its environment
      variable. Stops gracefully on SIGTERM or SIGINT. See /openapi.json for the API.

        --database-url    DATABASE_URL              postgres://storeledger_writer:…@host/db
        --bundle-id       STORELEDGER_BUNDLE_ID     the app's bundle id (required)
        --app-apple-id    STORELEDGER_APP_APPLE_ID  required to accept Production data
        --environments    STORELEDGER_ENVIRONMENTS  default Production,Sandbox
        --root-certs      STORELEDGER_ROOT_CERTS    DER or PEM files; default Apple Root CA - G3
        --api-keys        STORELEDGER_API_KEYS      comma list of bearer keys (required)
        --catalog         STORELEDGER_CATALOG       product catalog JSON file
        --host, --port    STORELEDGER_HOST/_PORT    default 127.0.0.1:8080
        --log-level       LOG_LEVEL                 default info
        --no-projector                              another server keeps the account views
        --key-id, --issuer-id, --p8, --api-url      App Store Server API credentials
                          STORELEDGER_API_KEY_ID, _ISSUER_ID, _P8, _URL: the write side
        --consumption-policy STORELEDGER_CONSUMPTION_POLICY  answer refund requests by it
                                                    (needs the credentials)
        --changes-webhook STORELEDGER_CHANGES_WEBHOOKS  deliver the change feed to this URL
                                                    (repeat the flag; comma list in the variable)
        --changes-secret  STORELEDGER_CHANGES_SECRETS   the secret that signs each webhook's
                                                    deliveries, one per webhook, same order

      Examples:
        STORELEDGER_API_KEYS=$(openssl rand -hex 24) storeledger serve \\
          --database-url postgres://storeledger_writer@127.0.0.1/app --bundle-id com.example.app \\
          --app-apple-id 1234567890 --migrate
        DATABASE_URL=… STORELEDGER_BUNDLE_ID=com.example.app STORELEDGER_ENVIRONMENTS=Sandbox \\
          STORELEDGER_API_KEYS=k1,k2 STORELEDGER_PORT=9000 storeledger serve
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Option(help: "Answer refund requests by this policy (JSON); needs API credentials.")
  var consumptionPolicy: String?
  @Option(help: "Deliver the change feed to this http(s) URL (repeat for several).")
  var changesWebhook: [String] = []
  @Option(help: "The secret signing a webhook's deliveries (one per --changes-webhook, in order).")
  var changesSecret: [String] = []
  @Option(name: .customLong("api-keys"), help: "Comma list of bearer keys.") var apiKeys: String?
  @Option var host: String?
  @Option var port: Int?
  @Option(name: .customLong("log-level")) var logLevel: String?
  @Flag(help: "Apply the schema migrations before serving (needs a role that may migrate).")
  var migrate = false
  @Flag(
    name: .customLong("no-projector"),
    help: "Do not run the account projector here (another server runs it; queries stay correct).")
  var noProjector = false

  func run() async throws {
    let configuration = try serverConfiguration(ProcessInfo.processInfo.environment)
    let application = try buildApplication(configuration: configuration)
    try await application.runService()
  }

  func serverConfiguration(_ environment: [String: String]) throws -> ServerConfiguration {
    func setting(_ flag: String?, _ variable: String) -> String? {
      LedgerOptions.setting(flag, variable, environment)
    }
    let url = try ledger.databaseURL(environment)
    let ledgerConfiguration = try ledger.ledgerConfiguration(environment)
    let keys = LedgerOptions.list(setting(apiKeys, "STORELEDGER_API_KEYS"))
    guard !keys.isEmpty else {
      throw ValidationError("give --api-keys or set STORELEDGER_API_KEYS (comma list of keys)")
    }
    let portText = setting(port.map(String.init), "STORELEDGER_PORT") ?? "8080"
    guard let portNumber = Int(portText), (0...65535).contains(portNumber) else {
      throw ValidationError("the port must be a number from 0 to 65535")
    }
    let policyPath = setting(consumptionPolicy, "STORELEDGER_CONSUMPTION_POLICY")
    let hasCredentials = setting(api.keyId, "STORELEDGER_API_KEY_ID") != nil
    if policyPath != nil, !hasCredentials {
      throw ValidationError(
        "--consumption-policy needs App Store Server API credentials (--key-id, --issuer-id, --p8)")
    }
    let delivery = try changeDelivery(environment)
    let settings =
      try hasCredentials
      ? api.client(ledger: ledgerConfiguration, environment: environment) : nil
    return ServerConfiguration(
      host: setting(host, "STORELEDGER_HOST") ?? "127.0.0.1", port: portNumber,
      database: url.clientConfiguration, ledger: ledgerConfiguration, apiKeys: Set(keys),
      migrateOnStart: migrate, runsProjector: !noProjector,
      logLevel: setting(logLevel, "LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info,
      appStoreAPI: settings.map { AppStoreAPISettings(api: $0.0, verifier: $0.1) },
      consumption: try policyPath.map {
        ConsumptionWorkerConfiguration(policy: try ConsumptionCommand.policy($0))
      }, changeDelivery: delivery)
  }

  /// The change webhooks from the flags, or else from the environment.
  func changeDelivery(_ environment: [String: String]) throws -> ChangeDeliveryConfiguration? {
    let urls =
      changesWebhook.isEmpty
      ? ChangeEndpoint.values(environment["STORELEDGER_CHANGES_WEBHOOKS"]) : changesWebhook
    let secrets =
      changesSecret.isEmpty
      ? ChangeEndpoint.values(environment["STORELEDGER_CHANGES_SECRETS"]) : changesSecret
    guard !urls.isEmpty || !secrets.isEmpty else { return nil }
    do {
      return ChangeDeliveryConfiguration(
        endpoints: try ChangeEndpoint.list(urls: urls, secrets: secrets))
    } catch {
      throw ValidationError(error.message)
    }
  }
}
