import AppStoreVerification
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the HTTP server: the App Store webhook, transaction intake and account queries.",
    discussion: """
      Every setting comes from a flag or, when the flag is absent, from its environment \
      variable. Stops gracefully on SIGTERM or SIGINT. See /openapi.json for the API.

        --database-url       DATABASE_URL
            postgres://storeledger_writer:…@host/db
        --bundle-id          STORELEDGER_BUNDLE_ID
            the app's bundle id (required)
        --app-apple-id       STORELEDGER_APP_APPLE_ID
            required to accept Production data
        --environments       STORELEDGER_ENVIRONMENTS
            default Production,Sandbox
        --root-certs         STORELEDGER_ROOT_CERTS
            DER or PEM files; default Apple Root CA - G3
        --api-keys           STORELEDGER_API_KEYS
            comma list of bearer keys (required)
        --catalog            STORELEDGER_CATALOG
            product catalog JSON file
        --host, --port       STORELEDGER_HOST, STORELEDGER_PORT
            default 127.0.0.1:8080
        --trusted-proxies    STORELEDGER_TRUSTED_PROXIES
            comma list of the IP addresses of proxies in front of the server:
            their X-Forwarded-For names the client whose failed keys are counted
        --failed-keys-per-address STORELEDGER_FAILED_KEYS_PER_ADDRESS
            failed API keys from one client in a minute that lock it (default 30)
        --log-level          LOG_LEVEL
            default info
        --no-projector
            another server keeps the account views
        --key-id, --issuer-id, --p8, --api-url
                             STORELEDGER_API_KEY_ID, _ISSUER_ID, _P8, _URL
            App Store Server API credentials: the write side
        --consumption-policy STORELEDGER_CONSUMPTION_POLICY
            answer refund requests by it (needs the credentials)
        --changes-webhook    STORELEDGER_CHANGES_WEBHOOKS
            deliver the change feed to this URL (repeat the flag; a comma list
            in the variable)
        --changes-secret     STORELEDGER_CHANGES_SECRETS
            the secret that signs each webhook's deliveries, one per webhook,
            in the same order
        --apps               STORELEDGER_APPS
            several apps: a JSON file in place of --bundle-id, --app-apple-id,
            --environments, --catalog and --sandbox-entitles
        --app                STORELEDGER_APP
            serve only this app of the file

      The support console is at /console (sign in with one of the API keys).

      Several apps: each is served at /apps/NAME/v1/… (its console at /apps/NAME/console); \
      the webhook /v1/notifications/appstore takes every app's notifications and hands each \
      to the app its bundle id names (/apps/NAME/v1/notifications/appstore works too); every \
      metric has an app label. Each app has its own database: "database" is a name on \
      DATABASE_URL's server, or a URL.
        {"apps": [
          {"name": "pro", "bundleId": "com.example.pro", "appAppleId": 1234567890,
           "environments": ["Production", "Sandbox"], "database": "ledger_pro",
           "catalog": "pro-catalog.json", "sandboxEntitles": true,
           "appStoreServerAPI": {"keyId": "…", "issuerId": "…", "p8": "pro.p8"},
           "changeWebhooks": [{"url": "https://…", "secretVariable": "PRO_SECRET"}]},
          {"name": "lite", "bundleId": "com.example.lite",
           "database": "ledger_lite"}]}

      Examples:
        STORELEDGER_API_KEYS=$(openssl rand -hex 24) storeledger serve \\
          --database-url postgres://storeledger_writer@127.0.0.1/app \\
          --bundle-id com.example.app --app-apple-id 1234567890 --migrate
        DATABASE_URL=… STORELEDGER_BUNDLE_ID=com.example.app \\
          STORELEDGER_ENVIRONMENTS=Sandbox STORELEDGER_API_KEYS=k1,k2 \\
          STORELEDGER_PORT=9000 storeledger serve
        DATABASE_URL=postgres://storeledger_writer@db/postgres \\
          STORELEDGER_API_KEYS=k1 storeledger serve --apps apps.json
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Option(help: "Answer refund requests by this policy (JSON); needs API credentials.")
  var consumptionPolicy: String?
  @Option(help: "Deliver the change feed to this http(s) URL (repeat for several).")
  var changesWebhook: [String] = []
  @Option(help: "The secret signing a webhook's deliveries (one per --changes-webhook, in order).")
  var changesSecret: [String] = []
  @Option(
    help: "Publish signed checkpoints here, served at GET /v1/checkpoints (a folder per app).")
  var checkpointDir: String?
  @Option(
    help: "Sign a checkpoint every --checkpoint-interval with this key (PEM, P-256 or Ed25519).")
  var checkpointKey: String?
  @Option(help: "Seconds between signed checkpoints (default 60).") var checkpointInterval: Int?
  @Option(help: "POST each new signed checkpoint to this http(s) URL (repeat for several).")
  var checkpointWebhook: [String] = []
  @Option(name: .customLong("api-keys"), help: "Comma list of bearer keys.") var apiKeys: String?
  @Option(
    name: .customLong("trusted-proxies"),
    help: "Comma list of the IP addresses of proxies whose X-Forwarded-For names the client.")
  var trustedProxies: String?
  @Option(
    name: .customLong("failed-keys-per-address"),
    help: "Failed API keys from one client address in a minute that lock it (default 30).")
  var failedKeysPerAddress: Int?
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
    let environment = ProcessInfo.processInfo.environment
    let urls = try databaseURLs(environment)
    // Every setting is checked before the database is: a usage error is said as one. Only
    // the app may be missing here, when the database records it.
    do {
      _ = try serverConfiguration(environment)
    } catch let error as ValidationError
      where error.message.hasPrefix(LedgerOptions.appNotGiven)
    {}
    for url in urls { try await DatabaseCheck.require(url) }
    // One app: what its database records decides, the flags are checked against it, and the
    // first server records the flags' app for the commands that come after.
    var recorded: RecordedAppConfiguration?
    if try ledger.appsFile(environment) == nil, let url = urls.first {
      var logger = Logger(label: "storeledger.serve")
      logger.logLevel = .warning
      let quiet = logger
      // The pool logs errors only (see `LedgerOptions.withLedger`).
      logger.logLevel = .error
      let pool = logger
      let flags = try ledger.recordable(environment, by: "serve")
      recorded = try await PostgresClient.withRunningClient(url, logger: pool) {
        client -> RecordedAppConfiguration? in
        if let found = try await RecordedAppConfiguration.read(on: client, logger: quiet) {
          return found
        }
        // A schema not migrated yet has no table to record in; the next start records.
        if let flags { _ = try? await flags.recordIfAbsent(on: client, logger: quiet) }
        return nil
      }
    }
    let configuration = try serverConfiguration(environment, recorded: recorded)
    let application = try buildApplication(
      configuration: configuration, logger: serverLogger(environment))
    try await application.runService()
  }

  /// The server's logger, at `--log-level` (`LOG_LEVEL`), info when neither is given.
  func serverLogger(_ environment: [String: String]) -> Logger {
    var logger = Logger(label: "storeledger.server")
    logger.logLevel =
      LedgerOptions.setting(logLevel, "LOG_LEVEL", environment)
      .flatMap(Logger.Level.init(rawValue:)) ?? .info
    return logger
  }

  func serverConfiguration(
    _ environment: [String: String], recorded: RecordedAppConfiguration? = nil
  ) throws -> ServerConfiguration {
    func setting(_ flag: String?, _ variable: String) -> String? {
      LedgerOptions.setting(flag, variable, environment)
    }
    let (apps, routesByApp) = try servedApps(environment, recorded: recorded)
    let keys = LedgerOptions.list(setting(apiKeys, "STORELEDGER_API_KEYS"))
    guard !keys.isEmpty else {
      throw ValidationError("give --api-keys or set STORELEDGER_API_KEYS (comma list of keys)")
    }
    let portText = setting(port.map(String.init), "STORELEDGER_PORT") ?? "8080"
    guard let portNumber = Int(portText), (0...65535).contains(portNumber) else {
      throw ValidationError("the port must be a number from 0 to 65535")
    }
    let proxies = LedgerOptions.list(setting(trustedProxies, "STORELEDGER_TRUSTED_PROXIES"))
    if let wrong = proxies.first(where: { !ServerConfiguration.isIPAddress($0) }) {
      throw ValidationError(
        "the trusted proxy '\(wrong)' is no IP address: give each proxy's address "
          + "(like 10.0.0.5 or fd00::5), separated by commas")
    }
    var configuration = ServerConfiguration(
      host: setting(host, "STORELEDGER_HOST") ?? "127.0.0.1", port: portNumber, apps: apps,
      routesByApp: routesByApp, apiKeys: Set(keys), migrateOnStart: migrate,
      runsProjector: !noProjector)
    configuration.trustedProxies = proxies
    if let text = setting(
      failedKeysPerAddress.map(String.init), "STORELEDGER_FAILED_KEYS_PER_ADDRESS")
    {
      guard let limit = Int(text), limit > 0 else {
        throw ValidationError(
          "failed keys per address must be a positive number (default 30), not '\(text)'")
      }
      configuration.authenticationLimits.perAddress = limit
    }
    return configuration
  }

  /// The database of each served app.
  func databaseURLs(_ environment: [String: String]) throws -> [DatabaseURL] {
    guard let file = try ledger.appsFile(environment) else {
      return [try ledger.databaseURL(environment)]
    }
    let chosen = try ledger.app.map { [try file.app(named: $0)] } ?? file.apps
    let base = try ledger.serverURL(environment)
    return try chosen.map { try AppsFile.databaseURL(of: $0, base: base) }
  }

  /// The app of the flags, or every app of the apps file (only `--app`'s when given).
  func servedApps(
    _ environment: [String: String], recorded: RecordedAppConfiguration? = nil
  ) throws -> ([ServedApp], Bool) {
    guard let file = try ledger.appsFile(environment) else {
      let configuration = try ledger.ledgerConfiguration(environment, recorded: recorded)
      return (
        [
          try servedApp(
            name: configuration.bundleId, database: try ledger.databaseURL(environment),
            ledger: configuration, webhooks: [], environment: environment)
        ], false
      )
    }
    let chosen = try ledger.app.map { [try file.app(named: $0)] } ?? file.apps
    let base = try ledger.serverURL(environment)
    return (
      try chosen.map { app in
        try servedApp(
          name: app.name, database: try AppsFile.databaseURL(of: app, base: base), app: app,
          ledger: try ledger.ledgerConfiguration(for: app, environment),
          webhooks: app.changeWebhooks,
          environment: environment.merging(app.apiVariables) { _, app in app })
      }, true
    )
  }

  /// One app with its credentials, refund policy and change webhooks (the flags' and its own).
  private func servedApp(
    name: String, database: DatabaseURL, app: AppsFile.App? = nil,
    ledger configuration: LedgerConfiguration, webhooks: [AppsFile.Webhook],
    environment: [String: String]
  ) throws -> ServedApp {
    let policyPath = LedgerOptions.setting(
      consumptionPolicy, "STORELEDGER_CONSUMPTION_POLICY", environment)
    let hasCredentials =
      LedgerOptions.setting(api.keyId, "STORELEDGER_API_KEY_ID", environment) != nil
    if policyPath != nil, !hasCredentials {
      throw ValidationError(
        "--consumption-policy needs App Store Server API credentials (--key-id, --issuer-id, --p8)"
          + " for \(name)")
    }
    let settings =
      try hasCredentials ? api.client(ledger: configuration, environment: environment) : nil
    return ServedApp(
      name: name, database: database,
      readReplicas: try ledger.readReplicaURLs(environment, primary: database, app: app).map(
        ServedApp.ReplicaDatabase.init),
      replicaSettings: try ledger.replicaSettings(environment), ledger: configuration,
      appStoreAPI: settings.map { AppStoreAPISettings(api: $0.0, verifier: $0.1) },
      consumption: try policyPath.map {
        ConsumptionWorkerConfiguration(policy: try ConsumptionCommand.policy($0))
      }, changeDelivery: try changeDelivery(environment, appWebhooks: webhooks),
      checkpoints: try checkpoints(environment, app: app, origin: configuration.bundleId))
  }

  /// Where the app's checkpoints are published and, with a key, signed.
  func checkpoints(_ environment: [String: String], app: AppsFile.App?, origin: String) throws
    -> CheckpointSettings?
  {
    let directory = LedgerOptions.setting(checkpointDir, "STORELEDGER_CHECKPOINT_DIR", environment)
    let keyPath = LedgerOptions.setting(checkpointKey, "STORELEDGER_CHECKPOINT_KEY", environment)
    let seconds = try LedgerOptions.setting(
      checkpointInterval.map(String.init), "STORELEDGER_CHECKPOINT_INTERVAL", environment
    ).map { text in
      guard let value = Int(text), (1...86_400).contains(value) else {
        throw ValidationError("--checkpoint-interval is 1 to 86400 seconds")
      }
      return value
    }
    let hooks =
      checkpointWebhook.isEmpty
      ? LedgerOptions.list(environment["STORELEDGER_CHECKPOINT_WEBHOOKS"]) : checkpointWebhook
    let webhooks = try hooks.map { text in
      guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""),
        url.host != nil
      else { throw ValidationError("--checkpoint-webhook \(text) is not an http(s) URL") }
      return url
    }
    guard let directory else {
      if keyPath != nil || seconds != nil || !webhooks.isEmpty {
        throw ValidationError(
          "--checkpoint-key, --checkpoint-interval and --checkpoint-webhook need --checkpoint-dir")
      }
      return nil
    }
    var url = URL(fileURLWithPath: directory, isDirectory: true)
    if let app { url = url.appendingPathComponent(app.name, isDirectory: true) }
    return CheckpointSettings(
      directory: CheckpointDirectory(url), key: try keyPath.map(CheckpointCommand.privateKey),
      interval: .seconds(seconds ?? 60), origin: app?.name ?? origin, webhooks: webhooks)
  }

  /// The change webhooks from the flags, or else from the environment, and the app's own
  /// (each with the secret its variable holds).
  func changeDelivery(_ environment: [String: String], appWebhooks: [AppsFile.Webhook] = [])
    throws -> ChangeDeliveryConfiguration?
  {
    let urls =
      changesWebhook.isEmpty
      ? ChangeEndpoint.values(environment["STORELEDGER_CHANGES_WEBHOOKS"]) : changesWebhook
    let secrets =
      changesSecret.isEmpty
      ? ChangeEndpoint.values(environment["STORELEDGER_CHANGES_SECRETS"]) : changesSecret
    guard !urls.isEmpty || !secrets.isEmpty || !appWebhooks.isEmpty else { return nil }
    guard urls.count == secrets.count else {
      throw ValidationError(
        "\(urls.count) changes webhooks but \(secrets.count) secrets: give one secret per webhook")
    }
    let appSecrets = try appWebhooks.map { webhook in
      guard let secret = environment[webhook.secretVariable], !secret.isEmpty else {
        throw ValidationError(
          "the changes webhook \(webhook.url) needs its secret in \(webhook.secretVariable)")
      }
      return secret
    }
    do {
      return ChangeDeliveryConfiguration(
        endpoints: try ChangeEndpoint.list(
          urls: urls + appWebhooks.map(\.url), secrets: secrets + appSecrets))
    } catch {
      throw ValidationError(error.message)
    }
  }
}
