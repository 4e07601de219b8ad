import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct ExplainCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "explain",
    abstract: "Why an account has (or lacks) an entitlement: the rule and the deciding events.",
    discussion: """
      Folds the account's log and explains the entitlement at --at (default now): the answer, \
      the rule that applied (see projections/), and for each source the events — type, when \
      Apple signed it, transaction — that decided it. Exit 1 when the account never had it.

      Examples:
        storeledger explain 9f1c2b7e-… pro --database-url postgres://… \\
          --bundle-id com.example.app
        storeledger explain 9f1c2b7e-… pro --at 2026-03-15T00:00:00Z --json …
      """)

  @Argument(help: "The appAccountToken.") var token: String
  @Argument(help: "The entitlement, as the catalog names it (or a product id without one).")
  var entitlement: String
  @Option(help: "The time to explain (ISO 8601 or milliseconds; default now).") var at: String?
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the explanation as JSON.") var json = false

  func run() async throws {
    let time = try at.map { try RecoverCommand.time($0, "--at") } ?? Date()
    let (token, entitlement) = (token, entitlement)
    let explanation = try await ledger.withLedger("storeledger.explain") { ledger, _ in
      try await ledger.explain(entitlement: entitlement, for: token, at: time)
    }
    guard let explanation else {
      throw CommandFailure(
        "\(token) has no \(entitlement) at any time the log knows; list what it has with "
          + "`storeledger entitlements \(token)`")
    }
    say(json ? try CommandJSON.string(explanation) : Self.text(explanation, indent: ""))
  }

  static func text(_ explanation: Explanation, indent: String) -> String {
    var lines = [
      "\(indent)\(explanation.subject): \(explanation.answer)",
      "\(indent)  rule \(explanation.rule)",
    ]
    for event in explanation.events {
      let signed = event.signedDate.map { $0.date.formatted(.iso8601) } ?? "unsigned"
      lines.append(
        "\(indent)  · \(event.notification ?? event.eventType) signed \(signed)"
          + (event.transactionId.map { ", transaction \($0)" } ?? ""))
    }
    for source in explanation.because { lines.append(text(source, indent: indent + "  ")) }
    return lines.joined(separator: "\n")
  }
}
