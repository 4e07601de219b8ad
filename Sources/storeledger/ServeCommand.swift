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

      Examples:
        STORELEDGER_API_KEYS=$(openssl rand -hex 24) storeledger serve \\
          --database-url postgres://storeledger_writer@127.0.0.1/app --bundle-id com.example.app \\
          --app-apple-id 1234567890 --migrate
        DATABASE_URL=… STORELEDGER_BUNDLE_ID=com.example.app STORELEDGER_ENVIRONMENTS=Sandbox \\
          STORELEDGER_API_KEYS=k1,k2 STORELEDGER_PORT=9000 storeledger serve
      """)

  @Option(name: .customLong("database-url")) var databaseURL: String?
  @Option(name: .customLong("bundle-id")) var bundleId: String?
  @Option(name: .customLong("app-apple-id")) var appAppleId: Int64?
  @Option(help: "Comma list of Production, Sandbox, Xcode, LocalTesting.") var environments: String?
  @Option(name: .customLong("root-certs"), help: "Comma list of DER or PEM files.")
  var rootCertificates: String?
  @Option(name: .customLong("api-keys"), help: "Comma list of bearer keys.") var apiKeys: String?
  @Option(help: "Product catalog JSON file.") var catalog: String?
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
      flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }
    guard let urlText = setting(databaseURL, "DATABASE_URL") else {
      throw ValidationError("give --database-url or set DATABASE_URL")
    }
    guard let bundle = setting(bundleId, "STORELEDGER_BUNDLE_ID") else {
      throw ValidationError("give --bundle-id or set STORELEDGER_BUNDLE_ID")
    }
    let keys = Self.list(setting(apiKeys, "STORELEDGER_API_KEYS"))
    guard !keys.isEmpty else {
      throw ValidationError("give --api-keys or set STORELEDGER_API_KEYS (comma list of keys)")
    }
    let url: DatabaseURL
    do { url = try DatabaseURL(urlText) } catch { throw ValidationError(error.message) }
    let ledger = LedgerConfiguration(
      bundleId: bundle,
      appAppleId: try setting(appAppleId.map(String.init), "STORELEDGER_APP_APPLE_ID").map {
        guard let id = Int64($0) else { throw ValidationError("the app Apple id must be a number") }
        return id
      },
      environments: Self.list(
        setting(environments, "STORELEDGER_ENVIRONMENTS") ?? "Production,Sandbox"
      )
      .map(AppStoreEnvironment.init(rawValue:)),
      trustedRoots: try RootCertificates.load(
        Self.list(setting(rootCertificates, "STORELEDGER_ROOT_CERTS"))),
      catalog: try setting(catalog, "STORELEDGER_CATALOG").map(Self.catalog) ?? .empty)
    let portText = setting(port.map(String.init), "STORELEDGER_PORT") ?? "8080"
    guard let portNumber = Int(portText), (0...65535).contains(portNumber) else {
      throw ValidationError("the port must be a number from 0 to 65535")
    }
    return ServerConfiguration(
      host: setting(host, "STORELEDGER_HOST") ?? "127.0.0.1", port: portNumber,
      database: url.clientConfiguration, ledger: ledger, apiKeys: Set(keys),
      migrateOnStart: migrate, runsProjector: !noProjector,
      logLevel: setting(logLevel, "LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info)
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
