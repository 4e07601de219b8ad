import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

struct MigrateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "migrate",
    abstract: "Create or update StoreLedger's tables, roles and triggers in PostgreSQL.",
    discussion: """
      Applies each migration of schema/ once, in order, in one transaction under an advisory \
      lock; running it again changes nothing. Connect as a role that may create roles and \
      schemas (a superuser, or the database owner with CREATEROLE). It creates the roles \
      storeledger_owner (owns everything), storeledger_writer (the engine: SELECT and INSERT \
      on events) and storeledger_reader (SELECT); give the last two passwords with ALTER ROLE.

      With --bundle-id (and the app's other flags), records the app in the database: every \
      command on it then answers for that app, with its catalog and roots, from \
      --database-url alone, and refuses a flag that says otherwise. `serve` records its app \
      when none is recorded yet.

      With an apps file (--apps or STORELEDGER_APPS), migrates each app's database (a \
      database name is taken on the server of the URL), or only --app's.

      Examples:
        storeledger migrate \\
          --database-url postgres://postgres@127.0.0.1:5432/storeledger \\
          --bundle-id com.example.app --app-apple-id 1234567890 \\
          --catalog catalog.json
        storeledger migrate --database-url postgres://postgres@127.0.0.1/postgres \\
          --apps apps.json
        DATABASE_URL=postgres://admin:secret@db:5432/app storeledger migrate --json
      """)

  @Option(
    name: .customLong("database-url"),
    help: "postgres://user:password@host:port/database (default: $DATABASE_URL).")
  var databaseURL: String?

  @Option(help: "An apps file: migrate each app's database.") var apps: String?
  @Option(help: "Only this app of the apps file.") var app: String?

  @Flag(help: "Print the applied and already applied versions as JSON.")
  var json = false

  @Option(help: "Give up when the database cannot be reached or locked within this many seconds.")
  var timeout: Int = 30
  @Option(
    name: .customLong("bundle-id"),
    help: "Record the app in the database (with the flags below): commands then need no flags.")
  var bundleId: String?
  @Option(name: .customLong("app-apple-id"), help: "The app's App Apple ID (Production).")
  var appAppleId: Int64?
  @Option(help: "Comma list of Production, Sandbox, Xcode, LocalTesting.") var environments: String?
  @Option(name: .customLong("root-certs"), help: "Comma list of DER or PEM files.")
  var rootCertificates: String?
  @Option(help: "Product catalog JSON file.") var catalog: String?
  @Option(name: .customLong("sandbox-entitles"), help: "yes (default) or no.")
  var sandboxEntitles: String?
  @Option(name: .customLong("rescinded-consent-ends-entitlements"), help: "yes or no (default).")
  var rescindedConsentEndsEntitlements: String?

  func run() async throws {
    guard let text = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] else {
      throw ValidationError("give --database-url or set DATABASE_URL")
    }
    let url: DatabaseURL
    do {
      url = try DatabaseURL(text)
    } catch {
      throw ValidationError(error.message)
    }
    let logger = Logger(label: "storeledger.migrate")
    exitAfterDeadline(seconds: timeout)
    var poolLogger = logger
    poolLogger.logLevel = .error
    let recorded = try recordable()
    do {
      for url in try databases(base: url) {
        try await DatabaseCheck.require(url)
        let report = try await PostgresClient.withRunningClient(url, logger: poolLogger) {
          client in
          let report = try await SchemaMigrator(client: client, logger: logger).migrate()
          try await recorded?.replace(on: client, logger: logger)
          return report
        }
        StandardStreams.out(render(report) + "\n")
        if let recorded, !json {
          StandardStreams.out(
            "recorded the app \(recorded.bundleId) in the database: commands on it need no app flags\n"
          )
        }
      }
    } catch let error as EventStoreError {
      if let sqlState = error.sqlState,
        let problem = DatabaseProblem.classify(sqlState: sqlState, url: url)
      {
        StandardStreams.error("error: \(problem)\n")
      } else {
        StandardStreams.error("error: \(error.code): \(error.message)\n")
      }
      throw ExitCode.failure
    }
  }

  /// The app the flags describe, to record; nil without --bundle-id (or its variable).
  private func recordable() throws -> RecordedAppConfiguration? {
    let environment = ProcessInfo.processInfo.environment
    let flags = LedgerOptions.AppFlags(
      bundleId: bundleId, appAppleId: appAppleId, environments: environments,
      rootCertificates: rootCertificates, catalog: catalog, sandboxEntitles: sandboxEntitles,
      rescindedConsentEndsEntitlements: rescindedConsentEndsEntitlements)
    let given = try LedgerOptions.givenConfiguration(flags, environment)
    guard let recorded = LedgerOptions.recordable(given, by: "migrate") else {
      if given.appAppleId != nil || given.catalog != nil || given.environments != nil {
        throw ValidationError("give --bundle-id with the app's other flags to record the app")
      }
      return nil
    }
    if LedgerOptions.setting(apps, "STORELEDGER_APPS", environment) != nil {
      throw ValidationError("an apps file describes its apps; leave out --bundle-id with --apps")
    }
    return recorded
  }

  /// The database of the URL, or each app's of the apps file.
  private func databases(base: DatabaseURL) throws -> [DatabaseURL] {
    let environment = ProcessInfo.processInfo.environment
    guard let path = LedgerOptions.setting(apps, "STORELEDGER_APPS", environment) else {
      if app != nil { throw ValidationError("--app needs an apps file (--apps)") }
      return [base]
    }
    let file = try AppsFile.load(path)
    let chosen = try app.map { [try file.app(named: $0)] } ?? file.apps
    return try chosen.map { try AppsFile.databaseURL(of: $0, base: base) }
  }

  /// The connection pool keeps retrying an unreachable server; a command-line run should
  /// rather say so and stop.
  private func exitAfterDeadline(seconds: Int) {
    Task.detached {
      try await Task.sleep(for: .seconds(seconds))
      StandardStreams.error(
        "error: database_unavailable: no answer from the database within \(seconds) s; check the URL and that the server is running\n"
      )
      Foundation.exit(1)
    }
  }

  private func render(_ report: SchemaMigrator.Report) -> String {
    if json {
      let applied = report.applied.map(String.init).joined(separator: ",")
      let already = report.alreadyApplied.map(String.init).joined(separator: ",")
      return #"{"applied":[\#(applied)],"alreadyApplied":[\#(already)]}"#
    }
    if report.applied.isEmpty {
      return "schema up to date (\(report.alreadyApplied.count) migrations already applied)"
    }
    return "applied migrations \(report.applied.map(String.init).joined(separator: ", "))"
  }
}
