import ArgumentParser
import Foundation
import StoreLedger

/// `storeledger link TOKEN ORIGINAL_TRANSACTION_ID`: an account owns a purchase.
struct LinkCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "link",
    abstract: "Attach a purchase made without an account token (e.g. an offer code) to an account.",
    discussion: """
      Records that the account owns the purchase chain. With API credentials the token is \
      first set at Apple (Set App Account Token), so later transactions and notifications \
      carry it; Apple's refusals (a family member's purchase, an id that is not the original \
      one) are shown with Apple's code and nothing is stored.

      A purchase has one owner: one that another account holds is refused \
      (purchase_held_by_another_account) unless --transfer moves it, with its \
      entitlements, to this account in one recorded step.

      Example:
        storeledger link 7e3c…-… 2000000123456789 --database-url … \\
          --bundle-id com.example.app \\
          --key-id 2X9R4HXF34 --issuer-id 57246542-… --p8 key.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The account's appAccountToken (a UUID).") var appAccountToken: String
  @Argument(help: "The purchase's originalTransactionId.") var originalTransactionId: String
  @Flag(help: "Only in the ledger: do not set the token at Apple even with credentials.")
  var ledgerOnly = false
  @Flag(help: "Move the purchase from the account that holds it now.") var transfer = false

  func run() async throws {
    let (api, token, original, ledgerOnly, transfer) = (
      api, appAccountToken, originalTransactionId, ledgerOnly, transfer
    )
    let hasCredentials =
      LedgerOptions.setting(
        api.keyId, "STORELEDGER_API_KEY_ID",
        try self.ledger.apiEnvironment(ProcessInfo.processInfo.environment))
      != nil
    let stored = try await ledger.withLedger("storeledger.link") { ledger, logger in
      let apple =
        hasCredentials && !ledgerOnly
        ? try api.client(for: ledger, options: self.ledger, logger: logger).0 : nil
      return (
        try await ledger.link(
          appAccountToken: token, originalTransactionId: original, apple: apple,
          transfer: transfer), apple != nil
      )
    }
    say(
      (stored.0.wasDuplicate ? "already linked" : "linked")
        + ": \(original) to the account"
        + (stored.1 ? "; Apple carries the token on later transactions" : " (in the ledger only)"))
  }
}
