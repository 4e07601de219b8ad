import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger consent TOKEN`: a customer's refund consent, shown or recorded.
struct ConsentCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "consent",
    abstract: "Show or record a customer's consent to share consumption data for refund requests.",
    discussion: """
      With the refund policy's consent "recorded" (the default), StoreLedger answers Apple's \
      refund requests with customerConsented only for a customer whose recorded answer in \
      force says yes; with "atPurchase", unless the customer withdrew it. Apps usually record \
      it with POST /v1/accounts/{token}/consent; this records it by hand.

      Examples:
        storeledger consent 9f1c… --granted --method "refund dialog v2"
        storeledger consent 9f1c… --withdrawn --collected-at 2026-11-27T10:00:00Z
        storeledger consent 9f1c…
      """)

  @Argument(help: "The customer's appAccountToken.") var token: String
  @Flag(help: "Record that the customer consented.") var granted = false
  @Flag(help: "Record that the customer withdrew consent.") var withdrawn = false
  @Option(help: "When the app collected it (a date, RFC 3339 or Unix ms; default now).")
  var collectedAt: String?
  @Option(help: "How it was collected (the app's words).") var method: String?
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    if granted && withdrawn { throw ValidationError("give --granted or --withdrawn, not both") }
    if !granted && !withdrawn && (collectedAt != nil || method != nil) {
      throw ValidationError("--collected-at and --method go with --granted or --withdrawn")
    }
  }

  func run() async throws {
    let time = try collectedAt.map { try OptionTime.date($0, "--collected-at") }
    let history = try await ledger.withLedger("storeledger.consent") { ledger, _ in
      let consents = RefundConsents(ledger: ledger)
      do {
        if granted || withdrawn {
          try await consents.record(
            appAccountToken: token, consented: granted, collectedAt: time ?? Date(),
            method: method)
        }
        return try await consents.history(for: token)
      } catch let error as LedgerError where error.code == .invalidRequest {
        throw ValidationError(error.message)
      }
    }
    let format = ISO8601DateFormatter()
    guard !history.isEmpty else {
      say("no consent recorded: refund requests are answered only if the policy says atPurchase")
      return
    }
    for answer in history {
      say(
        "\(format.string(from: answer.collectedAt.date)) \(answer.consented ? "granted" : "withdrawn")"
          + (answer.method.map { " (\($0))" } ?? ""))
    }
    let now = RefundConsent.inForce(history, at: Timestamp(Date()))
    say("in force: \(now.map { $0.consented ? "granted" : "withdrawn" } ?? "none")")
  }
}
