import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger accounts list [filters]`: accounts by what their views hold, newest change
/// first, a page at a time (or every page with --all).
struct AccountsListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract:
      "List accounts by status, entitlement, product, storefront, environment, change or expiry.",
    discussion: """
      Every filter given narrows the list; the newest change comes first. A page holds \
      --limit accounts; the next page's cursor is printed last (text) or as `nextCursor` \
      (json): pass it with --cursor and the same filters. --all prints every page. The list \
      reads the views as the projector last stored them (a running server keeps them \
      current; `storeledger rebuild` makes them all again).

      Examples:
        storeledger accounts list --status billing_retry
        storeledger accounts list --entitlement pro --storefront DEU \\
          --format csv --all > pro-de.csv
        storeledger accounts list --expires-from 2026-12-01T00:00:00Z \\
          --expires-before 2026-12-08T00:00:00Z
      """)

  @Option(
    help: "A subscription status: 1–5 or active, expired, billing_retry, grace_period, revoked.")
  var status: String?
  @Option(help: "An entitlement the account holds in force.") var entitlement: String?
  @Option(help: "A product of its subscriptions or consumables.") var product: String?
  @Option(help: "A storefront of its subscriptions (three letters).") var storefront: String?
  @Option(help: "Production, Sandbox, Xcode or LocalTesting.") var environment: String?
  @Option(help: "Changed at or after this time (a date, RFC 3339 or Unix ms).") var changedSince:
    String?
  @Option(help: "An active period ends at or after this time (a date, RFC 3339 or Unix ms).")
  var expiresFrom: String?
  @Option(help: "An active period ends before this time (a date, RFC 3339 or Unix ms).")
  var expiresBefore: String?
  @Option(help: "The start of an appAccountToken, in any spelling.") var search: String?
  @Option(help: "Accounts per page, 1–1000.") var limit: Int = 50
  @Option(help: "The cursor a previous page printed.") var cursor: String?
  @Flag(help: "Every page, not just one.") var all = false
  @Option(help: "text, json or csv.") var format: ListFormat = .text
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    guard (1...AccountLists.pageLimit).contains(limit) else {
      throw ValidationError("--limit is 1 to \(AccountLists.pageLimit)")
    }
  }

  func filter() throws -> AccountListFilter {
    var filter = AccountListFilter(
      entitlement: entitlement, productId: product, storefront: storefront?.uppercased(),
      environment: environment)
    do {
      filter.status = try status.map { text throws(LedgerError) in
        try AccountLists.status(named: text)
      }
    } catch {
      throw ValidationError(error.message)
    }
    filter.changedSince = try OptionTime.instant(changedSince, "--changed-since")
    filter.expiresFrom = try OptionTime.instant(expiresFrom, "--expires-from")
    filter.expiresBefore = try OptionTime.instant(expiresBefore, "--expires-before")
    if let search {
      guard let prefix = AppAccountToken.prefixFromAnySpelling(search) else {
        throw ValidationError("--search takes an appAccountToken or its start (hex digits)")
      }
      filter.tokenPrefix = prefix
    }
    return filter
  }

  func run() async throws {
    let filter = try filter()
    let (limit, cursor, all, format) = (self.limit, self.cursor, self.all, self.format)
    try await ledger.withLedger("storeledger.accounts") { ledger, _ in
      let lists = AccountLists(ledger: ledger)
      try await ListPrinter.print(
        format: format, all: all, header: ListCSV.accountsHeader,
        first: try await ListPrinter.refusingBadInput {
          try await lists.accounts(filter, limit: limit, cursor: cursor)
        },
        next: { cursor in try await lists.accounts(filter, limit: limit, cursor: cursor) },
        csv: ListCSV.fields,
        text: { row in
          [
            row.appAccountToken,
            row.changedAt.milliseconds == 0 ? "-" : ListTimes.text(row.changedAt),
            row.viewMade
              ? row.statuses.map(String.init).joined(separator: ",") : "(view not made yet)",
            row.entitlements.joined(separator: ","), row.products.joined(separator: ","),
            row.storefronts.joined(separator: ","), row.nextExpiry.map(ListTimes.text) ?? "-",
          ]
        },
        textHeader: [
          "ACCOUNT", "CHANGED", "STATUSES", "ENTITLEMENTS", "PRODUCTS", "STOREFRONTS", "ENDS NEXT",
        ], noun: "accounts")
    }
  }
}
