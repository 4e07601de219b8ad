import AppStoreVerification
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The settings every command that opens the ledger needs; each flag falls back to its
/// environment variable.
struct LedgerOptions: ParsableArguments {
  @Option(name: .customLong("database-url")) var databaseURL: String?
  @Option(name: .customLong("bundle-id")) var bundleId: String?
  @Option(name: .customLong("app-apple-id")) var appAppleId: Int64?
  @Option(help: "Comma list of Production, Sandbox, Xcode, LocalTesting.") var environments: String?
  @Option(name: .customLong("root-certs"), help: "Comma list of DER or PEM files.")
  var rootCertificates: String?
  @Option(help: "Product catalog JSON file.") var catalog: String?
  @Option(
    name: .customLong("sandbox-entitles"),
    help: "yes (default: App Review and TestFlight buy in Sandbox) or no.")
  var sandboxEntitles: String?
  @Option(help: "An apps file: several apps in one deployment (see `storeledger serve --help`).")
  var apps: String?
  @Option(help: "The app of the apps file (needed when it lists several).") var app: String?

  static func setting(_ flag: String?, _ variable: String, _ environment: [String: String])
    -> String?
  {
    flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The database: DATABASE_URL's, or with `--apps` the selected app's.
  func databaseURL(_ environment: [String: String]) throws -> DatabaseURL {
    let base = try serverURL(environment)
    guard let app = try selectedApp(environment) else { return base }
    return try AppsFile.databaseURL(of: app, base: base)
  }

  /// `--database-url` or DATABASE_URL as given.
  func serverURL(_ environment: [String: String]) throws -> DatabaseURL {
    guard let text = Self.setting(databaseURL, "DATABASE_URL", environment) else {
      throw ValidationError("give --database-url or set DATABASE_URL")
    }
    do { return try DatabaseURL(text) } catch { throw ValidationError(error.message) }
  }

  /// The apps file of `--apps` or STORELEDGER_APPS; nil without one. The app's own settings
  /// come from it, so the flags that set them are refused beside it.
  func appsFile(_ environment: [String: String]) throws -> AppsFile? {
    guard let path = Self.setting(apps, "STORELEDGER_APPS", environment) else {
      if app != nil {
        throw ValidationError("--app needs an apps file (--apps or STORELEDGER_APPS)")
      }
      return nil
    }
    let appFlags: [(String, Bool)] = [
      ("--bundle-id", bundleId != nil), ("--app-apple-id", appAppleId != nil),
      ("--environments", environments != nil), ("--catalog", catalog != nil),
      ("--sandbox-entitles", sandboxEntitles != nil),
    ]
    if let flag = appFlags.first(where: \.1) {
      throw ValidationError("\(flag.0) is set per app in the apps file; leave it out with --apps")
    }
    return try AppsFile.load(path)
  }

  /// The app of `--app` (or STORELEDGER_APP) in the apps file; nil without an apps file.
  func selectedApp(_ environment: [String: String]) throws -> AppsFile.App? {
    try appsFile(environment)?.app(named: Self.setting(app, "STORELEDGER_APP", environment))
  }

  /// The environment the App Store Server API settings are read from: with `--apps`, the
  /// selected app's credentials take the place of the STORELEDGER_API_* variables.
  func apiEnvironment(_ environment: [String: String]) throws -> [String: String] {
    guard let app = try selectedApp(environment) else { return environment }
    return environment.merging(app.apiVariables) { _, app in app }
  }

  func ledgerConfiguration(_ environment: [String: String]) throws -> LedgerConfiguration {
    if let app = try selectedApp(environment) {
      return try ledgerConfiguration(for: app, environment)
    }
    guard let bundle = Self.setting(bundleId, "STORELEDGER_BUNDLE_ID", environment) else {
      throw ValidationError("give --bundle-id or set STORELEDGER_BUNDLE_ID")
    }
    let appleId = try Self.setting(
      appAppleId.map(String.init), "STORELEDGER_APP_APPLE_ID", environment
    ).map {
      guard let id = Int64($0) else { throw ValidationError("the app Apple id must be a number") }
      return id
    }
    return LedgerConfiguration(
      bundleId: bundle, appAppleId: appleId,
      environments: Self.list(
        Self.setting(environments, "STORELEDGER_ENVIRONMENTS", environment)
          ?? "Production,Sandbox"
      ).map(AppStoreEnvironment.init(rawValue:)),
      trustedRoots: try RootCertificates.load(
        Self.list(Self.setting(rootCertificates, "STORELEDGER_ROOT_CERTS", environment))),
      catalog: try Self.setting(catalog, "STORELEDGER_CATALOG", environment).map(Self.catalog)
        ?? .empty,
      options: ProjectionOptions(
        sandboxEntitles: try Self.yesOrNo(
          Self.setting(sandboxEntitles, "STORELEDGER_SANDBOX_ENTITLES", environment),
          name: "--sandbox-entitles") ?? true))
  }

  /// An app of the apps file; the root certificates are the deployment's.
  func ledgerConfiguration(for app: AppsFile.App, _ environment: [String: String]) throws
    -> LedgerConfiguration
  {
    LedgerConfiguration(
      bundleId: app.bundleId, appAppleId: app.appAppleId, environments: app.environments,
      trustedRoots: try RootCertificates.load(
        Self.list(Self.setting(rootCertificates, "STORELEDGER_ROOT_CERTS", environment))),
      catalog: try app.catalogPath.map(Self.catalog) ?? .empty,
      options: ProjectionOptions(sandboxEntitles: app.sandboxEntitles ?? true), app: app.name)
  }

  static func yesOrNo(_ text: String?, name: String) throws -> Bool? {
    switch text?.lowercased() {
    case nil: return nil
    case "yes", "true", "1": return true
    case "no", "false", "0": return false
    default: throw ValidationError("\(name) is yes or no")
    }
  }

  /// Opens the ledger on the configured database for `body`, logging warnings and errors only.
  func withLedger<Result: Sendable>(
    _ label: String, _ body: @Sendable (Ledger, Logger) async throws -> Result
  ) async throws -> Result {
    let environment = ProcessInfo.processInfo.environment
    let url = try databaseURL(environment)
    let configuration = try ledgerConfiguration(environment)
    var logger = Logger(label: label)
    logger.logLevel = .warning
    let quiet = logger
    do {
      return try await PostgresClient.withRunningClient(url, logger: quiet) { client in
        try await body(
          try Ledger(client: client, configuration: configuration, logger: quiet), quiet)
      }
    } catch let error as LedgerError {
      throw CommandFailure(error)
    }
  }

  static func list(_ text: String?) -> [String] {
    (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  static func catalog(_ path: String) throws -> ProductCatalog {
    do {
      return try JSONDecoder().decode(ProductCatalog.self, from: Data(InputReader.bytes(path)))
    } catch {
      throw ValidationError("the catalog \(path) is not a product catalog: \(error)")
    }
  }
}
