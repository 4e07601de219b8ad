import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct DebitCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "debit",
    abstract: "Spend units of a consumable; refused when the balance does not cover it.",
    discussion: """
      Appends a debit to the account's log under --key: sending the same key again stores \
      nothing new (safe to retry). A debit larger than the balance is refused (exit 1) and \
      changes nothing.

      Examples:
        storeledger debit 9f1c2b7e-… gems.100 25 --key order-8812 \\
          --database-url postgres://…
      """)

  @Argument(help: "The appAccountToken.") var token: String
  @Argument(help: "The consumable's product id.") var productId: String
  @Argument(help: "Units to spend (positive).") var quantity: Int64
  @Option(help: "Your idempotency key for this debit (an order id, a request id).") var key: String
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the result as JSON.") var json = false

  func validate() throws {
    if quantity < 1 { throw ValidationError("the quantity must be a positive number of units") }
    if key.isEmpty { throw ValidationError("--key must not be empty") }
  }

  func run() async throws {
    let (token, productId, quantity, key) = (token, productId, quantity, key)
    let (ingested, balance) = try await ledger.withLedger("storeledger.debit") { ledger, _ in
      let ingested = try await ledger.debit(
        appAccountToken: token, productId: productId, quantity: quantity, idempotencyKey: key)
      let balance = try await ledger.balances(for: token).first { $0.productId == productId }
      return (ingested, balance?.balance ?? 0)
    }
    if json {
      say(
        try CommandJSON.string(
          IngestCommand.Output(ingested, balance: balance)))
    } else {
      say(
        (ingested.wasDuplicate ? "already debited under \(key)" : "debited \(quantity)")
          + "; \(productId) balance now \(balance)")
    }
  }
}
