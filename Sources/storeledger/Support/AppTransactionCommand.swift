import AppStoreServerAPI
import AppStoreVerification
import ArgumentParser
import Foundation
import StoreLedger

/// `storeledger app-transaction ID`: the customer's app download (Get App Transaction Info).
struct AppTransactionCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "app-transaction",
    abstract:
      "Get App Transaction Info: the customer's app download, verified, as Apple signed it.",
    discussion: """
      Takes any of the customer's transaction ids (or the appTransactionId itself) and prints \
      the verified app transaction as JSON; its appTransactionId is the customer's identity \
      (one per Apple Account per app), with which `replay --app-transaction-id` replays them.

      Example:
        storeledger app-transaction 2000000123456789 --api-url sandbox \\
          --bundle-id … --database-url … --key-id … --issuer-id … --p8 key.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "Any transaction id of the customer.") var id: String

  func run() async throws {
    let (api, id) = (api, id)
    let json = try await ledger.withLedger("storeledger.app-transaction") { ledger, logger in
      let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
      do {
        return try await client.appTransactionInfo(id).payloadJSON
      } catch {
        throw ValidationError("Get App Transaction Info failed: \(error)")
      }
    }
    say(String(decoding: json, as: UTF8.self))
  }
}
