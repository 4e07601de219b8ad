import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct EntitlementsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "entitlements",
    abstract: "What an account may use now (or at --at): entitlements, subscriptions, balances.",
    discussion: """
      Answers from the account's current view, or folds the log when the view is behind, so \
      an ingest that has returned is always reflected.

      Examples:
        storeledger entitlements 9f1c2b7e-… --database-url postgres://…
        storeledger entitlements 9f1c2b7e-… --at 2026-03-15T00:00:00Z --json …
      """)

  @Argument(help: "The appAccountToken.") var token: String
  @Option(help: "The time to answer at (a date, RFC 3339 or Unix ms; default now).") var at: String?
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print JSON: {entitlements, subscriptions, consumables, asOf, …}.") var json = false

  func run() async throws {
    let time = try at.map { try OptionTime.date($0, "--at") } ?? Date()
    let token = token
    let summary = try await ledger.withLedger("storeledger.entitlements") { ledger, _ in
      try await ledger.summary(for: token, at: time)
    }
    say(json ? try CommandJSON.string(summary) : Self.text(summary, token: token, at: time))
  }

  static func text(_ summary: AccountSummary, token: String, at time: Date) -> String {
    var entitlements = TextTable(
      title: "\(token) at \(time.formatted(.iso8601))",
      header: ["entitlement", "active", "until", "source"])
    for entitlement in summary.entitlements {
      entitlements.rows.append([
        entitlement.entitlement, entitlement.active ? "yes" : "no",
        CommandJSON.time(entitlement.expiresDate), entitlement.source,
      ])
    }
    var subscriptions = TextTable(
      title: "Subscriptions",
      header: ["originalTransactionId", "product", "status", "expires", "auto-renew"])
    for subscription in summary.subscriptions {
      subscriptions.rows.append([
        subscription.originalTransactionId, subscription.productId ?? "-",
        "\(subscription.status) \(DemoSummary.statusNames[String(subscription.status)] ?? "")",
        CommandJSON.time(subscription.expiresDate),
        subscription.autoRenewStatus.map { $0 == 1 ? "on" : "off" } ?? "-",
      ])
    }
    var balances = TextTable(
      title: "Consumables", header: ["product", "purchased", "refunded", "debited", "balance"])
    for consumable in summary.consumables {
      balances.rows.append([
        consumable.productId, "\(consumable.purchased)", "\(consumable.refunded)",
        "\(consumable.debited)", "\(consumable.balance)",
      ])
    }
    return [entitlements.render(), subscriptions.render(), balances.render()]
      .joined(separator: "\n").trimmingCharacters(in: .newlines)
  }
}
