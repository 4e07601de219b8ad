import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

#if canImport(Glibc)
  import Glibc
#endif

struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "See StoreLedger do its whole job in one command, on a private PostgreSQL.",
    discussion: """
      Without DATABASE_URL it starts a private PostgreSQL from the machine's server binaries \
      (installing the postgresql package if there are none) in .storeledger/postgres on a free \
      loopback port; with DATABASE_URL (or --database-url) it uses that database, which must \
      allow creating the storeledger schema.

      Then it runs a simulated App Store and the StoreLedger server in this process, plays \
      --customers customers over --months months with Apple-like delivery faults (lost, \
      duplicated and reordered notifications) through the real webhook, replays Transaction \
      History and recovers Notification History to repair what was lost, audits the log and \
      the read models, measures ingest and query throughput, and prints what every account is \
      entitled to at the simulation's end. Ctrl-C stops everything cleanly. With --keep the \
      server goes on serving and prints the support console's address and an API key to sign \
      in with, so you can look through the demo's customers in a browser; Ctrl-C then stops the \
      server and leaves the database running, with how to query it.

      Examples:
        swift run storeledger demo
        swift run storeledger demo --customers 500 --keep
        DATABASE_URL=postgres://postgres@127.0.0.1:5432/demo swift run storeledger \\
          demo --json
      """)

  @Option(help: "How many simulated customers.") var customers = 2000
  @Option(help: "How many 30-day months.") var months = 12
  @Option(help: "The seed of every choice: the same seed, the same customers.") var seed: UInt64 = 7
  @Option(help: "Share of notifications lost on the way (0–1).") var drop = 0.05
  @Option(help: "Share of notifications delivered twice (0–1).") var duplicate = 0.1
  @Option(name: .customLong("day-seconds"), help: "Wall seconds per simulated day.")
  var daySeconds = 0.001
  @Option(help: "Entitlement queries sent to measure query throughput.") var queries = 5000
  @Option(name: .customLong("database-url"), help: "Use this database instead of a private one.")
  var databaseURL: String?
  @Option(help: "Where the private database and the demo's files live.")
  var directory = ".storeledger"
  @Flag(
    help:
      "Keep the server running with the support console open on the demo's customers (until Ctrl-C), and the database after it."
  )
  var keep = false
  @Flag(help: "Print the summary as JSON (no progress).") var json = false

  func validate() throws {
    guard customers > 0, months > 0, daySeconds >= 0, queries >= 0 else {
      throw ValidationError("--customers and --months must be positive, the others not negative")
    }
    guard (0...1).contains(drop), (0...1).contains(duplicate) else {
      throw ValidationError("--drop and --duplicate are shares from 0 to 1")
    }
  }

  func run() async throws {
    let logger = {
      var logger = Logger(label: "storeledger.demo")
      logger.logLevel = .error
      return logger
    }()
    let environment = ProcessInfo.processInfo.environment
    DemoInterruption.watch()
    let (database, cluster) = try await open(
      LedgerOptions.setting(databaseURL, "DATABASE_URL", environment), logger: logger)
    let summary: DemoSummary?
    do {
      _ = try await PostgresClient.withRunningClient(database, logger: logger) { client in
        try await SchemaMigrator(client: client, logger: logger).migrate()
      }
      summary =
        DemoInterruption.wasRequested
        ? nil
        : try await DemoRun(
          settings: .init(
            customers: customers, months: months, seed: seed, drop: drop, duplicate: duplicate,
            daySeconds: daySeconds, queries: queries, quiet: json,
            onServing: keep ? serving(cluster, database) : nil),
          database: database, directory: directory, logger: logger
        ).run()
    } catch {
      close(cluster)
      throw error
    }
    guard let summary else {
      close(cluster)
      say("interrupted: everything stopped")
      throw ExitCode(130)
    }
    if !keep {
      say(json ? try CommandJSON.string(summary) : summary.text())
      close(cluster)
    }
    if !summary.auditConsistent { throw ExitCode.failure }
  }

  /// What `--keep` prints once the demo is done: the summary, the console's address and a key
  /// to sign in with, and how to reach the database.
  private func serving(_ cluster: EmbeddedPostgres?, _ database: DatabaseURL)
    -> @Sendable (DemoSummary, String, String) -> Void
  {
    let help =
      cluster.map { connectionHelp($0, database) }
        ?? """
        Ask it as a backend would (the demo recorded its app in the database, so the URL is all
        a command needs; TOKEN is any appAccountToken of the console):
          \(Self.executable) entitlements TOKEN --database-url 'the URL given to the demo'
        """
    let json = json
    return { summary, console, key in
      say(json ? (try? CommandJSON.string(summary)) ?? "" : summary.text())
      say(
        """
        The support console is open on the demo's customers until Ctrl-C:
          \(console)
          sign in with the API key \(key)
        """)
      say(help)
    }
  }

  /// The database to use: the given URL, or a private cluster with a fresh demo database.
  private func open(_ url: String?, logger: Logger) async throws -> (DatabaseURL, EmbeddedPostgres?)
  {
    if let url {
      if !json { say("using the database at DATABASE_URL") }
      do { return (try DatabaseURL(url), nil) } catch { throw ValidationError(error.message) }
    }
    let cluster = try EmbeddedPostgres.start(in: directory + "/postgres") { line in say(line) }
    let server = try DatabaseURL(cluster.url)
    let version: String
    do {
      version = try await PostgresClient.withRunningClient(server, logger: logger) { client in
        try await client.execute(
          "DROP DATABASE IF EXISTS storeledger_demo WITH (FORCE)", logger: logger)
        try await client.execute("CREATE DATABASE storeledger_demo", logger: logger)
        return try await client.query("SHOW server_version", logger: logger) { rows in
          var version = "?"
          for try await value in rows.decode(String.self) { version = value }
          return version
        }
      }
    } catch {
      cluster.stop(removing: !keep)
      throw error
    }
    if !json {
      say(
        "PostgreSQL \(version): a private cluster in \(cluster.directory) on "
          + "127.0.0.1:\(cluster.port)" + (keep ? " (kept: --keep)" : " (removed on exit)"))
    }
    return (server.with(database: "storeledger_demo"), cluster)
  }

  private func close(_ cluster: EmbeddedPostgres?) {
    cluster?.stop(removing: !keep)
  }

  /// This binary's absolute path: a hint that works as printed, whatever the PATH and the
  /// directory it is pasted in.
  static var executable: String {
    let path = Bundle.main.executablePath ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
  }

  private func connectionHelp(_ cluster: EmbeddedPostgres, _ database: DatabaseURL) -> String {
    let url = "postgres://postgres@127.0.0.1:\(cluster.port)/storeledger_demo"
    let stop =
      (cluster.runAsUser.map { "runuser -u \($0) -- " } ?? "")
      + "\(cluster.binDirectory)/pg_ctl -D \(cluster.dataDirectory) stop"
    return """
      The database keeps running (--keep). Connect and query it:
        psql '\(url)'
          SELECT event_type, count(*) FROM storeledger.events GROUP BY 1 ORDER BY 2 DESC;
          SELECT app_account_token, view->'entitlements' FROM storeledger.account_views LIMIT 5;
      Ask it as a backend would (the demo recorded its app in the database, so the URL is all
      a command needs; TOKEN is any appAccountToken of the console):
        \(Self.executable) entitlements TOKEN --database-url '\(url)'
        \(Self.executable) explain TOKEN --database-url '\(url)'
      Stop it:
        \(stop)
      """
  }
}
