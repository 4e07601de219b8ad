import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger webhook-check`: the end-to-end check of a fresh set-up.
struct WebhookCheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "webhook-check",
    abstract: "Ask Apple for a TEST notification and wait until this ledger has stored it.",
    discussion: """
      Calls Request a Test Notification for the environment of --api-url, then polls Get Test \
      Notification Status and the log until Apple reports its delivery attempts and the \
      notification is stored (or --timeout passes). Exits 1 when the check fails, saying \
      what to fix.

      Example:
        storeledger webhook-check --api-url sandbox --database-url … \\
          --bundle-id com.example.app \\
          --key-id 2X9R4HXF34 --issuer-id 57246542-… --p8 key.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Option(help: "Seconds to wait for Apple's attempt and the stored notification.")
  var timeout = 60
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let (api, timeout) = (api, timeout)
    let check = try await ledger.withLedger("storeledger.webhook-check") { ledger, logger in
      let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
      return try await AppleActions(ledger: ledger).checkWebhook(
        apple: client, timeout: .seconds(timeout))
    }
    if json {
      say(try CommandJSON.string(check))
    } else {
      var lines = [
        check.passed
          ? "passed: Apple's TEST notification \(check.notificationUUID ?? "") is stored in "
            + "\(check.storedIn ?? "")"
          : "failed: \(check.advice ?? "")"
      ]
      for attempt in check.attempts {
        lines.append(
          "  attempt \(attempt.date?.date.formatted(.iso8601) ?? "?"): \(attempt.result ?? "?")")
      }
      say(lines.joined(separator: "\n"))
    }
    if !check.passed { throw ExitCode(1) }
  }
}
