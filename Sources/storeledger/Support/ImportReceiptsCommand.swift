import AppStoreServerAPI
import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger import-receipts FILE|-`: customers with StoreKit 1 receipts onto the ledger.
struct ImportReceiptsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import-receipts",
    abstract: "Migrate customers from StoreKit 1 receipts: replay them and link their tokens.",
    discussion: """
      One receipt per line: a base64 app receipt or legacy transaction receipt, optionally \
      followed by the customer's appAccountToken (or a JSON object {"receipt", "appAccountToken"}). \
      Each receipt only names a transaction: the customer is replayed from Transaction History \
      v2 and All Subscription Statuses (signed data, verified), and the token is linked here \
      and at Apple (Set App Account Token). A run cut short resumes: receipts imported before \
      are skipped. Exits 1 when any receipt failed; the report says why.

      Example:
        storeledger import-receipts receipts.txt --api-url production \\
          --database-url … \\
          --bundle-id com.example.app --app-apple-id 1234567890 --key-id … \\
            --issuer-id … --p8 key.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The file of receipts, or - for standard input.") var file: String
  @Flag(help: "Print the report as JSON.") var json = false

  func run() async throws {
    let text = try InputReader.read(file)
    let items = text.split(whereSeparator: \.isNewline).compactMap {
      ReceiptImport.Item.parse(line: String($0))
    }
    guard !items.isEmpty else { throw ValidationError("\(file) holds no receipt") }
    let (api, quiet) = (api, json)
    let bar = ProgressBar("importing", enabled: !quiet)
    let report = try await ledger.withLedger("storeledger.import-receipts") { ledger, logger in
      let (client, served) = try api.client(for: ledger, options: self.ledger, logger: logger)
      let importer = ReceiptImport(
        ledger: ledger, client: client,
        environment: served ?? ledger.configuration.environments.first ?? .production,
        logger: logger)
      return await importer.run(items) { done, total in bar.update(done, of: total, "receipts") }
    }
    bar.finish()
    if json {
      say(try CommandJSON.string(report))
    } else {
      var lines = [
        "\(report.migrated) customers migrated, \(report.alreadyKnown) already known, "
          + "\(report.resumed) imported before, \(report.failed) failed"
      ]
      for outcome in report.outcomes where outcome.kind == .failed {
        lines.append("  line \(outcome.line): \(outcome.reason ?? "failed")")
      }
      say(lines.joined(separator: "\n"))
    }
    if report.failed > 0 { throw ExitCode(1) }
  }
}
