import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct ReconcileCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reconcile",
    abstract: "Compare subscriptions with what the App Store says now; record disagreements.",
    discussion: """
      For every purchase chain the log knows (--all), one account's (--account TOKEN) or some \
      transactions' customers (--transaction ID, repeatable): asks Get All Subscription \
      Statuses, compares Apple's status with the projection at the time Apple signed its \
      answer, and records each disagreement as a status observation (evidence next to the \
      history, never over it). Prints each disagreement; exits 0.

      Examples:
        storeledger reconcile --all --database-url postgres://… \\
          --bundle-id com.example.app \\
          --key-id ABC123 --issuer-id 5f6e… --p8 AuthKey_ABC123.p8
        storeledger reconcile --account 9f1c2b7e-… --json …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Flag(help: "Every purchase chain the log knows.") var all = false
  @Option(help: "The purchase chains of this account.") var account: String?
  @Option(help: "A customer by any of its transaction ids (repeatable).") var transaction:
    [String] = []
  @Flag(help: "Print the report as JSON.") var json = false

  func validate() throws {
    guard [all, account != nil, !transaction.isEmpty].filter({ $0 }).count == 1 else {
      throw ValidationError("give exactly one of --all, --account TOKEN, --transaction ID")
    }
  }

  func run() async throws {
    let customers: CustomerReplay.Customers =
      all ? .everyone : account.map { .account($0) } ?? .transactions(transaction)
    let api = api
    let report = try await ledger.withLedger("storeledger.reconcile") { ledger, logger in
      let (client, served) = try api.client(for: ledger, options: self.ledger, logger: logger)
      let chains = try await LedgerMaintenance(ledger: ledger).purchaseChains(
        customers, in: served ?? ledger.configuration.environments.first ?? .production,
        logger: logger)
      return try await Reconciliation(ledger: ledger, client: client, logger: logger)
        .reconcile(chains)
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      say(String(decoding: try encoder.encode(report), as: UTF8.self))
      return
    }
    for disagreement in report.disagreements {
      say(
        "\(disagreement.originalTransactionId): ledger \(disagreement.ledger.map(String.init) ?? "none"), "
          + "App Store \(disagreement.appStore.map(String.init) ?? "none")")
    }
    say(
      "\(report.compared) subscriptions compared: \(report.agreed) agree, "
        + "\(report.disagreements.count) disagree (\(report.recorded) recorded as evidence)")
  }
}
