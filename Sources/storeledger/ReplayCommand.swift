import AppStoreServerAPI
import AppStoreVerification
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore

struct ReplayCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Rebuild customers from Transaction History v2 and All Subscription Statuses.",
    discussion: """
      For every customer the log knows (--all), one account (--account TOKEN) or the customers \
      of some transactions (--transaction ID, repeatable): pages Transaction History v2 from \
      the revision the last replay stored, fetches the current renewal infos, verifies \
      everything and ingests it as the webhook would (marked "replay"). A run cut short \
      resumes where it stopped; a second run fetches only what changed. --concurrency \
      customers at once; 429 answers are waited out.

      Example:
        storeledger replay --all --database-url postgres://… \\
          --bundle-id com.example.app \\
          --app-apple-id 1234567890 --key-id 2X9R4HXF34 --issuer-id 57246542-… \\
            --p8 key.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Flag(help: "Every customer the log knows.") var all = false
  @Option(help: "The customers of this account.") var account: String?
  @Option(help: "A customer by any of its transaction ids (repeatable).") var transaction:
    [String] = []
  @Option(
    name: .customLong("app-transaction-id"),
    help: "A customer by its appTransactionId (the app download; repeatable).")
  var appTransactionId: [String] = []
  @Option(help: "Customers replayed at once.") var concurrency = 4
  @Flag(help: "Print the report as JSON.") var json = false

  func validate() throws {
    let chosen = [all, account != nil, !(transaction + appTransactionId).isEmpty].filter { $0 }
      .count
    guard chosen == 1 else {
      throw ValidationError(
        "give exactly one of --all, --account TOKEN, --transaction ID, --app-transaction-id ID")
    }
  }

  func run() async throws {
    let customers: CustomerReplay.Customers =
      all
      ? .everyone : account.map { .account($0) } ?? .transactions(transaction + appTransactionId)
    let (api, quiet, concurrency) = (api, json, concurrency)
    let bar = ProgressBar("replaying", enabled: !quiet)
    let report = try await ledger.withLedger("storeledger.replay") { ledger, logger in
      let (client, served) = try api.client(for: ledger, options: self.ledger, logger: logger)
      let replay = CustomerReplay(
        ledger: ledger, client: client,
        environment: served ?? ledger.configuration.environments.first ?? .production,
        concurrency: concurrency, logger: logger)
      return try await replay.replay(customers) { progress in
        bar.update(
          progress.customers, of: nil,
          "customers, \(progress.transactionsFetched.grouped) transactions, "
            + "\(progress.appended.grouped) appended")
      }
    }
    bar.finish()
    say(json ? try Self.json(report) : Self.text(report))
  }

  static func text(_ report: CustomerReplay.Report) -> String {
    "replayed \(report.customers) customers: \(report.pages) history pages, "
      + "\(report.transactionsFetched) transactions and \(report.renewalInfosFetched) renewal "
      + "infos fetched, \(report.refundsFetched) refunds from Refund History; \(report.appended) appended, \(report.alreadyStored) already stored, "
      + "\(report.rejected.values.reduce(0, +)) rejected"
      + (report.unrouted.map { $0.routed > 0 ? "; \($0.routed) unrouted notifications routed" : "" }
        ?? "")
  }

  static func json(_ report: CustomerReplay.Report) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(report), as: UTF8.self)
  }
}
