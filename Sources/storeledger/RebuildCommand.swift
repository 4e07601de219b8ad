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
    let accounts = try await ledger.withLedger("storeledger.rebuild") { ledger, _ in
      try await ledger.rebuildAccountViews()
    }
    say("\(accounts) account views projected from the log")
  }
}
