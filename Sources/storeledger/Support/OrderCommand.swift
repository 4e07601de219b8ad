import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger order ORDER_ID`: what a customer's receipt order is, and who holds it.
struct OrderCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "order",
    abstract: "Look up an order id from a customer's receipt: purchases, accounts, entitlements.",
    discussion: """
      Calls Look Up Order ID (Apple offers it in Production only), verifies the order's \
      transactions, stores those the log lacks, and shows which accounts hold them and what \
      those accounts are entitled to now.

      Example:
        storeledger order MK5TTTVWJH --database-url postgres://… \\
          --bundle-id com.example.app \\
          --app-apple-id 1234567890 --key-id 2X9R4HXF34 --issuer-id 57246542-… \\
            --p8 key.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The order id on the customer's receipt email.") var orderId: String
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let (api, orderId) = (api, orderId)
    let report = try await ledger.withLedger("storeledger.order") { ledger, logger in
      let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
      return try await AppleActions(ledger: ledger).lookUpOrder(orderId, apple: client)
    }
    if json {
      say(try CommandJSON.string(report))
      return
    }
    var purchases = TextTable(
      title: "order \(report.orderId)",
      header: ["transaction", "original", "product", "purchased", "revoked", "ledger"])
    for purchase in report.purchases {
      purchases.rows.append([
        purchase.transactionId, purchase.originalTransactionId ?? "-", purchase.productId ?? "-",
        CommandJSON.time(purchase.purchaseDate),
        CommandJSON.time(purchase.revocationDate),
        purchase.newToTheLedger ? "stored now" : "known",
      ])
    }
    var lines = [purchases.render()]
    for account in report.accounts {
      let active = account.entitlements.filter(\.active).map(\.entitlement)
      lines.append(
        "account \(account.appAccountToken): "
          + (active.isEmpty
            ? "no entitlement now" : "entitled to " + active.joined(separator: ", ")))
    }
    if !report.unlinked.isEmpty {
      lines.append(
        "no account holds \(report.unlinked.joined(separator: ", ")); "
          + "`storeledger link TOKEN ORIGINAL_TRANSACTION_ID` attaches one")
    }
    say(lines.joined(separator: "\n"))
  }
}
