import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// `storeledger changes …`: the change feed, its webhook deliveries, and resending them.
struct ChangesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "changes",
    abstract: "The change feed: list changes, follow them, see and resend webhook deliveries.",
    discussion: """
      Every change of an account's derived state (an entitlement granted or revoked, a \
      status change, a billing problem, a refund, a balance) is a change with a global \
      position. `serve --changes-webhook URL --changes-secret S` delivers them, signed; these \
      commands read the feed and the delivery log, and queue deliveries again.

      Examples:
        storeledger changes list --after 1200 --limit 50
        storeledger changes list --follow --json
        storeledger changes derive   (what a running server's projector does, once)
        storeledger changes deliveries --state dead
        storeledger changes resend --endpoint hooks.example.com/storeledger \\
          --position 1200
        storeledger changes resend --endpoint hooks.example.com/storeledger \\
          --since 2026-11-24T08:00:00Z
      """,
    subcommands: [List.self, Derive.self, Deliveries.self, Resend.self])

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Changes after a position, in order; --follow waits for new ones.")
    @OptionGroup var ledger: LedgerOptions
    @Option(help: "Start after this position (0: from the first change).") var after: Int64 = 0
    @Option(help: "At most this many changes (1-1000).") var limit = 100
    @Option(help: "Only this account's changes (its appAccountToken).") var account: String?
    @Flag(help: "Keep printing changes as they are appended, until interrupted.")
    var follow = false
    @Flag(help: "Print one JSON object per line (the webhook body).") var json = false

    func run() async throws {
      let (after, limit, account, follow, json) = (after, limit, account, follow, json)
      try await ledger.withLedger("storeledger.changes") { ledger, _ in
        if follow {
          for try await record in ChangeFeedReader(ledger: ledger).sequence(
            after: after, account: account)
          {
            say(json ? ChangesCommand.line(record) : ChangesCommand.text([record]))
          }
          return
        }
        let records = try await ChangeFeedReader(ledger: ledger).changes(
          after: after, limit: limit, account: account)
        say(
          json
            ? records.map(ChangesCommand.line).joined(separator: "\n")
            : ChangesCommand.text(records))
      }
    }
  }

  struct Derive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Project the log once: bring the account views and the change feed up to date.",
      discussion: """
        A running server's projector does this all the time; without one (the library \
        embedded in a batch job, a fresh restore), this derives what is due up to now.
        """)
    @OptionGroup var ledger: LedgerOptions

    func run() async throws {
      let (projected, head) = try await ledger.withLedger("storeledger.changes") { ledger, logger in
        (
          try await AccountProjector(ledger: ledger, logger: logger).catchUp(),
          try await ChangeFeedReader(ledger: ledger).head()
        )
      }
      say("\(projected.grouped) events projected; the change feed's newest position is \(head)")
    }
  }

  struct Deliveries: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Webhook endpoints with their counts, and the delivery log, newest first.")
    @OptionGroup var ledger: LedgerOptions
    @Option(help: "Only this endpoint (its key: host and path).") var endpoint: String?
    @Option(help: "pending, delivered or dead.") var state: String?
    @Flag(help: "Only the failing ones: dead, or retrying after an attempt.") var failing = false
    @Option(help: "At most this many deliveries (1-1000).") var limit = 50
    @Option(help: "Continue after the page before (its `next page` cursor).") var cursor: String?
    @Flag(help: "Print JSON.") var json = false

    struct Listing: Encodable {
      let endpoints: [ChangeDeliveryCounts]
      let deliveries: [ChangeDelivery]
      /// How many deliveries the list holds (all pages), and the cursor of the next page.
      let total: Int
      let nextCursor: String?
    }

    func run() async throws {
      let filter = ChangeDeliveryFilter(
        endpoint: endpoint, state: try DeliveryState.named(state), failing: failing)
      let (limit, cursor) = (limit, cursor)
      let listing = try await ledger.withLedger("storeledger.changes") { ledger, _ in
        let log = ChangeDeliveryLog(ledger: ledger)
        let page: ListPage<ChangeDelivery>
        do {
          page = try await log.changeDeliveriesPage(filter, limit: limit, cursor: cursor)
        } catch let error as LedgerError where error.code == .invalidCursor {
          throw ValidationError(error.message)
        }
        return Listing(
          endpoints: try await log.changeDeliveryCounts(), deliveries: page.rows,
          total: page.total, nextCursor: page.nextCursor)
      }
      if json {
        say(try CommandJSON.string(listing))
        return
      }
      var endpoints = TextTable(
        title: "endpoints",
        header: ["endpoint", "delivered", "retrying", "waiting", "dead", "lag (s)"])
      for count in listing.endpoints {
        endpoints.rows.append([
          count.endpoint, String(count.delivered), String(count.retrying),
          String(count.waiting + count.unqueued), String(count.dead),
          String(format: "%.1f", count.lagSeconds),
        ])
      }
      var deliveries = TextTable(
        title: "deliveries: \(listing.deliveries.count) of \(listing.total)"
          + (listing.nextCursor.map { "; the next page: --cursor \($0)" } ?? ""),
        header: ["position", "endpoint", "state", "attempts", "last answer", "next attempt"])
      for delivery in listing.deliveries {
        deliveries.rows.append([
          String(delivery.position), delivery.endpoint, delivery.state.rawValue,
          String(delivery.attempts),
          delivery.lastStatus.map { "HTTP \($0)" } ?? delivery.lastError ?? "-",
          delivery.state == .pending ? delivery.nextAttemptAt.formatted(.iso8601) : "-",
        ])
      }
      say(endpoints.render() + "\n" + deliveries.render())
    }
  }

  struct Resend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Queue an endpoint's deliveries again from a position or a time on.")
    @OptionGroup var ledger: LedgerOptions
    @Option(help: "The endpoint's key (host and path; see `changes deliveries`).")
    var endpoint: String
    @Option(help: "Resend from this position on.") var position: Int64?
    @Option(help: "Resend the changes recorded since this time (a date, RFC 3339 or Unix ms).")
    var since: String?

    func validate() throws {
      guard (position == nil) != (since == nil) else {
        throw ValidationError("give either --position or --since")
      }
      _ = try OptionTime.instant(since, "--since")
    }

    func run() async throws {
      let (endpoint, position, since) = (endpoint, position, since)
      let queued = try await ledger.withLedger("storeledger.changes") { ledger, _ in
        if let position {
          return try await ChangeDeliveryLog(ledger: ledger).resendChanges(
            to: endpoint, from: position)
        }
        return try await ChangeDeliveryLog(ledger: ledger).resendChanges(
          to: endpoint, since: try OptionTime.date(since ?? "", "--since"))
      }
      say("queued \(queued) deliveries to \(endpoint) again")
    }
  }

  static func line(_ record: ChangeRecord) -> String {
    String(decoding: record.jsonBytes, as: UTF8.self)
  }

  static func text(_ records: [ChangeRecord]) -> String {
    var table = TextTable(
      title: "changes",
      header: ["position", "effective", "recorded", "account", "type", "subject", "old", "new"])
    for record in records {
      table.rows.append([
        String(record.position), record.effectiveAt?.date.formatted(.iso8601) ?? "-",
        record.recordedAt.formatted(.iso8601),
        record.appAccountToken, record.change.kind.rawValue, record.change.subject,
        record.change.old ?? "-", record.change.new ?? "-",
      ])
    }
    return table.render()
  }
}
