import ArgumentParser
import Foundation
import StoreLedger

/// `storeledger finish TRANSACTION_ID`: Finish Transaction at Apple.
struct FinishCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "finish",
    abstract: "Finish Transaction: tell Apple a purchase's content was delivered.",
    discussion: """
      The server-side equivalent of the app calling finish(), for a backend that delivers \
      content its app did not finish (App Store Server API 1.20). Recorded once per \
      transaction in the log.

      Example:
        storeledger finish 2000000123456789 --api-url sandbox \\
          --key-id … --p8 key.p8 …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The transactionId.") var transactionId: String

  func run() async throws {
    let (api, id) = (api, transactionId)
    try await ledger.withLedger("storeledger.finish") { ledger, logger in
      let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
      try await AppleActions(ledger: ledger).finishTransaction(id, apple: client)
    }
    say("finished: transaction \(id)")
  }
}
