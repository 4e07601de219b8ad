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
  @Option(
    name: .customLong("rescinded-consent-ends-entitlements"),
    help: "yes: a RESCIND_CONSENT ends its download's entitlements; no (default): it is told only.")
  var rescindedConsentEndsEntitlements: String?
  @Option(help: "An apps file: several apps in one deployment (see `storeledger serve --help`).")
  var apps: String?
  @Option(help: "The app of the apps file (needed when it lists several).") var app: String?
  @Option(
    name: .customLong("read-database-url"),
    help: """
      A streaming replica of the database that answers account queries, the console and the \
      change feed (repeatable; STORELEDGER_READ_DATABASE_URLS: a comma list). Writes stay on \
      the primary; a read of an account this process changed waits for a replica to replay \
      the change, then falls back to the primary.
      """)
  var readDatabaseURLs: [String] = []
  @Option(
    name: .customLong("read-wait"),
    help: "Milliseconds a read waits for a replica to replay this process's write (250).")
  var readWait: Int?
  @Option(
    name: .customLong("replica-max-lag"),
    help: "Seconds a replica may lag the primary before it is taken out of rotation (5).")
  var replicaMaximumLag: Double?

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

  /// The read replicas of `--read-database-url` (or STORELEDGER_READ_DATABASE_URLS) for the
  /// database at `primary`: a replica URL without a database reads the primary's; with an
  /// apps file, an app whose database is a name on DATABASE_URL's server reads that name on
  /// each replica's server, and an app with a URL of its own has none.
  func readReplicaURLs(
    _ environment: [String: String], primary: DatabaseURL, app: AppsFile.App? = nil
  ) throws -> [DatabaseURL] {
    let texts =
      readDatabaseURLs.isEmpty
      ? DatabaseURL.list(environment["STORELEDGER_READ_DATABASE_URLS"] ?? "") : readDatabaseURLs
    let urls = try texts.map { text in
      do throws(EventStoreError) { return try DatabaseURL(text) } catch {
        throw ValidationError("--read-database-url: \(error.message)")
      }
    }
    if let database = app?.database, database.contains("://") { return [] }
    return urls.map { url in
      guard let database = app?.database ?? (url.database == nil ? primary.database : nil)
      else { return url }
      return url.with(database: database)
    }
  }

  /// How the replicas are judged: `--read-wait` and `--replica-max-lag`.
  func replicaSettings(_ environment: [String: String]) throws -> ReadReplicas.Settings {
    var settings = ReadReplicas.Settings()
    if let text = Self.setting(readWait.map(String.init), "STORELEDGER_READ_WAIT", environment) {
      guard let milliseconds = Int(text), (0...60_000).contains(milliseconds) else {
        throw ValidationError("--read-wait is 0 to 60000 milliseconds")
      }
      settings.maximumWait = .milliseconds(milliseconds)
    }
    if let text = Self.setting(
      replicaMaximumLag.map { "\($0)" }, "STORELEDGER_REPLICA_MAX_LAG", environment)
    {
      guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
        throw ValidationError("--replica-max-lag is more than 0 and at most 3600 seconds")
      }
      settings.maximumLag = .milliseconds(Int(seconds * 1000))
    }
    return settings
  }

  /// `--database-url` or DATABASE_URL as given.
  func serverURL(_ environment: [String: String]) throws -> DatabaseURL {
    guard let text = Self.setting(databaseURL, "DATABASE_URL", environment) else {
      throw ValidationError("give --database-url or set DATABASE_URL")
    }
    do { return try DatabaseURL(text).checkedForWrites() } catch {
      throw ValidationError(error.message)
    }
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
      ("--rescinded-consent-ends-entitlements", rescindedConsentEndsEntitlements != nil),
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
    try ledgerConfiguration(environment, recorded: nil)
  }

  /// The app's configuration: the apps file's app, else what the database records, each
  /// setting given by a flag (or its variable) checked against it. A flag that contradicts the
  /// record is refused with both values, so a wrong `--bundle-id` never answers for another app.
  func ledgerConfiguration(_ environment: [String: String], recorded: RecordedAppConfiguration?)
    throws -> LedgerConfiguration
  {
    if let app = try selectedApp(environment) {
      return try ledgerConfiguration(for: app, environment)
    }
    let given = try givenConfiguration(environment)
    if let recorded { try Self.refuseContradictions(given, recorded) }
    guard let bundle = given.bundleId ?? recorded?.bundleId else {
      throw ValidationError(
        Self.appNotGiven + ", or record the app in the database once: "
          + "storeledger migrate --bundle-id … --app-apple-id … --catalog …")
    }
    let roots = given.rootCertificates ?? recorded?.rootCertificates
    return LedgerConfiguration(
      bundleId: bundle, appAppleId: given.appAppleId ?? recorded?.appAppleId,
      environments: (given.environments ?? recorded?.environments ?? ["Production", "Sandbox"])
        .map(AppStoreEnvironment.init(rawValue:)),
      trustedRoots: try roots.map { try TrustedRoots(derEncoded: $0) } ?? .apple,
      catalog: try given.catalog ?? recorded?.catalogJSON.map(Self.recordedCatalog) ?? .empty,
      options: ProjectionOptions(
        sandboxEntitles: given.sandboxEntitles ?? recorded?.sandboxEntitles ?? true,
        rescindedConsentEndsEntitlements: given.rescindedConsentEndsEntitlements
          ?? recorded?.rescindedConsentEndsEntitlements ?? false))
  }

  static let appNotGiven = "give --bundle-id (or STORELEDGER_BUNDLE_ID)"

  /// What the flags (or their variables) say; nil for each one not given.
  struct GivenConfiguration {
    var bundleId: String?
    var appAppleId: Int64?
    var environments: [String]?
    var catalog: ProductCatalog?
    var catalogJSON: String?
    var rootCertificates: [[UInt8]]?
    var sandboxEntitles: Bool?
    var rescindedConsentEndsEntitlements: Bool?
  }

  func givenConfiguration(_ environment: [String: String]) throws -> GivenConfiguration {
    try Self.givenConfiguration(
      AppFlags(
        bundleId: bundleId, appAppleId: appAppleId, environments: environments,
        rootCertificates: rootCertificates, catalog: catalog, sandboxEntitles: sandboxEntitles,
        rescindedConsentEndsEntitlements: rescindedConsentEndsEntitlements), environment)
  }

  /// The app's flags as given on a command line (nil: not given).
  struct AppFlags {
    var bundleId: String?
    var appAppleId: Int64?
    var environments: String?
    var rootCertificates: String?
    var catalog: String?
    var sandboxEntitles: String?
    var rescindedConsentEndsEntitlements: String?
  }

  static func givenConfiguration(_ flags: AppFlags, _ environment: [String: String]) throws
    -> GivenConfiguration
  {
    let appleId = try setting(
      flags.appAppleId.map(String.init), "STORELEDGER_APP_APPLE_ID", environment
    ).map {
      guard let id = Int64($0) else { throw ValidationError("the app Apple id must be a number") }
      return id
    }
    let catalogPath = setting(flags.catalog, "STORELEDGER_CATALOG", environment)
    let catalogJSON = try catalogPath.map {
      String(decoding: try InputReader.bytes($0), as: UTF8.self)
    }
    let roots = list(setting(flags.rootCertificates, "STORELEDGER_ROOT_CERTS", environment))
    return GivenConfiguration(
      bundleId: setting(flags.bundleId, "STORELEDGER_BUNDLE_ID", environment),
      appAppleId: appleId,
      environments: setting(flags.environments, "STORELEDGER_ENVIRONMENTS", environment).map {
        list($0)
      },
      catalog: try catalogPath.map(catalog), catalogJSON: catalogJSON,
      rootCertificates: roots.isEmpty ? nil : try RootCertificates.der(roots),
      sandboxEntitles: try yesOrNo(
        setting(flags.sandboxEntitles, "STORELEDGER_SANDBOX_ENTITLES", environment),
        name: "--sandbox-entitles"),
      rescindedConsentEndsEntitlements: try yesOrNo(
        setting(
          flags.rescindedConsentEndsEntitlements,
          "STORELEDGER_RESCINDED_CONSENT_ENDS_ENTITLEMENTS", environment),
        name: "--rescinded-consent-ends-entitlements"))
  }

  /// The configuration `migrate` or `serve` records: the flags', complete.
  func recordable(_ environment: [String: String], by command: String) throws
    -> RecordedAppConfiguration?
  {
    Self.recordable(try givenConfiguration(environment), by: command)
  }

  static func recordable(_ given: GivenConfiguration, by command: String)
    -> RecordedAppConfiguration?
  {
    guard let bundle = given.bundleId else { return nil }
    return RecordedAppConfiguration(
      bundleId: bundle, appAppleId: given.appAppleId,
      environments: given.environments ?? ["Production", "Sandbox"],
      catalogJSON: given.catalogJSON, rootCertificates: given.rootCertificates,
      sandboxEntitles: given.sandboxEntitles ?? true,
      rescindedConsentEndsEntitlements: given.rescindedConsentEndsEntitlements ?? false,
      recordedBy: command)
  }

  /// Refuses a flag that says otherwise than the database, naming both values.
  static func refuseContradictions(
    _ given: GivenConfiguration, _ recorded: RecordedAppConfiguration
  )
    throws
  {
    let by =
      "the database records (\(recorded.recordedBy)"
      + (recorded.recordedAt.map { ", \($0.formatted(.iso8601))" } ?? "") + ")"
    func refuse(_ flag: String, _ mine: String, _ theirs: String) -> CommandFailure {
      CommandFailure(
        "\(flag) \(mine) contradicts \(theirs), which \(by); leave the flag out to use the "
          + "database's, or change the record with storeledger migrate \(flag) …")
    }
    if let bundle = given.bundleId, bundle != recorded.bundleId {
      throw refuse("--bundle-id", bundle, recorded.bundleId)
    }
    if let id = given.appAppleId, id != recorded.appAppleId {
      throw refuse("--app-apple-id", "\(id)", recorded.appAppleId.map(String.init) ?? "none")
    }
    if let environments = given.environments, Set(environments) != Set(recorded.environments) {
      throw refuse(
        "--environments", environments.joined(separator: ","),
        recorded.environments.joined(separator: ","))
    }
    if let catalog = given.catalog {
      let theirs = try recorded.catalogJSON.map(Self.recordedCatalog) ?? .empty
      if catalog != theirs {
        throw refuse("--catalog", "(the file's products)", "another catalog")
      }
    }
    if let roots = given.rootCertificates, Set(roots) != Set(recorded.rootCertificates ?? []) {
      throw refuse("--root-certs", "(the files' certificates)", "other root certificates")
    }
    if let value = given.sandboxEntitles, value != recorded.sandboxEntitles {
      throw refuse(
        "--sandbox-entitles", value ? "yes" : "no", recorded.sandboxEntitles ? "yes" : "no")
    }
    if let value = given.rescindedConsentEndsEntitlements,
      value != recorded.rescindedConsentEndsEntitlements
    {
      throw refuse(
        "--rescinded-consent-ends-entitlements", value ? "yes" : "no",
        recorded.rescindedConsentEndsEntitlements ? "yes" : "no")
    }
  }

  static func recordedCatalog(_ json: String) throws -> ProductCatalog {
    do {
      let catalog = try JSONDecoder().decode(ProductCatalog.self, from: Data(json.utf8))
      try catalog.validate()
      return catalog
    } catch {
      throw ValidationError("the catalog the database records is not a product catalog: \(error)")
    }
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
      options: ProjectionOptions(
        sandboxEntitles: app.sandboxEntitles ?? true,
        rescindedConsentEndsEntitlements: app.rescindedConsentEndsEntitlements ?? false),
      app: app.name)
  }

  static func yesOrNo(_ text: String?, name: String) throws -> Bool? {
    switch text?.lowercased() {
    case nil: return nil
    case "yes", "true", "1": return true
    case "no", "false", "0": return false
    default: throw ValidationError("\(name) is yes or no")
    }
  }
}
