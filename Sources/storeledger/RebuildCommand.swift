import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerPostgres

struct RebuildCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rebuild",
    abstract: "Project every account's view again from the log.",
    discussion: """
      Re-creates missing view rows and projects every account from its events, page by page
      (after a restore, a change of catalog, or a view the audit found wrong). Views are
      replaced in place, each in one statement; versioned tables switched over in one
      transaction are not built yet.

      Example:
        storeledger rebuild --database-url postgres://storeledger_writer@127.0.0.1/app \\
          --bundle-id com.example.app --catalog catalog.json
      """)

  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    let url = try ledger.databaseURL(environment)
    let configuration = try ledger.ledgerConfiguration(environment)
    let logger = {
      var logger = Logger(label: "storeledger.rebuild")
      logger.logLevel = .warning
      return logger
    }()
    let accounts = try await PostgresClient.withRunningClient(url, logger: logger) { client in
      try await Ledger(client: client, configuration: configuration, logger: logger)
        .rebuildAccountViews()
    }
    say("\(accounts) account views projected from the log")
  }
}
