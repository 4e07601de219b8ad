import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger accounts transitions --status billing_retry --from … --before …`: who entered
/// a status in a window, from the change feed.
struct AccountsTransitionsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "transitions",
    abstract: "List subscriptions that entered a status in a window, newest first.",
    discussion: """
      Examples:
        storeledger accounts transitions --status billing_retry \\
          --from 2026-11-20T08:00:00Z --before 2026-11-20T14:00:00Z
        storeledger accounts transitions --status grace_period --format csv --all
      """)

  @Option(help: "The status entered: 1–5 or active, expired, billing_retry, grace_period, revoked.")
  var status: String
  @Option(
    help: "Entered at or after this time (a date, RFC 3339 or Unix ms) (default: the beginning).")
  var from: String?
  @Option(help: "Entered before this time (a date, RFC 3339 or Unix ms) (default: no end).")
  var before: String?
  @Option(help: "Rows per page, 1–1000.") var limit: Int = 50
  @Option(help: "The cursor a previous page printed.") var cursor: String?
  @Flag(help: "Every page, not just one.") var all = false
  @Option(help: "text, json or csv.") var format: ListFormat = .text
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    guard (1...AccountLists.pageLimit).contains(limit) else {
      throw ValidationError("--limit is 1 to \(AccountLists.pageLimit)")
    }
  }

  func run() async throws {
    let entered: Int32
    do {
      entered = try AccountLists.status(named: status)
    } catch {
      throw ValidationError(error.message)
    }
    let filter = StatusTransitionFilter(
      status: entered, from: try OptionTime.instant(from, "--from") ?? Timestamp(milliseconds: 0),
      before: try OptionTime.instant(before, "--before") ?? Timestamp(milliseconds: Int64.max))
    let (limit, cursor, all, format) = (self.limit, self.cursor, self.all, self.format)
    try await ledger.withLedger("storeledger.accounts") { ledger, _ in
      let lists = AccountLists(ledger: ledger)
      try await ListPrinter.print(
        format: format, all: all, header: ListCSV.transitionsHeader,
        first: try await ListPrinter.refusingBadInput {
          try await lists.statusTransitions(filter, limit: limit, cursor: cursor)
        },
        next: { cursor in try await lists.statusTransitions(filter, limit: limit, cursor: cursor) },
        csv: ListCSV.fields,
        text: { row in
          [
            ListTimes.text(row.effectiveAt), row.appAccountToken, row.originalTransactionId,
            row.from.map(String.init) ?? "-", String(row.to),
            row.cause == nil ? "time" : "event",
          ]
        },
        textHeader: ["WHEN", "ACCOUNT", "PURCHASE", "FROM", "TO", "CAUSE"], noun: "transitions")
    }
  }
}
