import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct NotUnderstoodCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "not-understood",
    abstract: "Verified notifications this release stored but does not understand.",
    discussion: """
      A notification whose signature and chain verify is never refused for being new. When \
      no body object names the app (a body Apple added after this release), it is kept as \
      unrouted evidence in the stream unrouted:<notificationUUID> and grants nothing; when \
      its app can be read but its type or a body object is unknown, it is stored in the \
      app's log and changes nothing. This lists both, newest first. --reexamine first reads \
      the unrouted ones again with this release's decoder and routes those whose app it can \
      now read (rebuild and replay do the same).

      Examples:
        storeledger not-understood --database-url postgres://…
        storeledger not-understood --reexamine --json … \\
          | jq '.notifications[].notificationType'
      """)

  @OptionGroup var ledger: LedgerOptions
  @Option(help: "The most notifications to list (newest first, 1-1000).") var limit = 100
  @Option(help: "Continue after the page before (its `next page` cursor).") var cursor: String?
  @Flag(help: "Route the unrouted notifications whose app this release can read, then list.")
  var reexamine = false
  @Flag(help: "Print JSON.") var json = false

  struct Output: Encodable {
    var reexamination: LedgerMaintenance.Reexamination?
    var notifications: [NotUnderstoodNotification]
    /// How many the list holds (all pages), and the cursor of the next page.
    var total: Int
    var nextCursor: String?
  }

  func validate() throws {
    guard (1...SupportQueries.notUnderstoodPageLimit).contains(limit) else {
      throw ValidationError("--limit is 1 to \(SupportQueries.notUnderstoodPageLimit)")
    }
  }

  func run() async throws {
    let (limit, cursor, reexamine) = (limit, cursor, reexamine)
    let output = try await ledger.withLedger("storeledger.not-understood") { ledger, _ in
      let reexamination =
        reexamine ? try await LedgerMaintenance(ledger: ledger).reexamineUnrouted() : nil
      let page: ListPage<NotUnderstoodNotification>
      do {
        page = try await SupportQueries(ledger: ledger).notUnderstoodPage(
          limit: limit, cursor: cursor)
      } catch let error as LedgerError where error.code == .invalidCursor {
        throw ValidationError(error.message)
      }
      return Output(
        reexamination: reexamination, notifications: page.rows, total: page.total,
        nextCursor: page.nextCursor)
    }
    if json {
      say(try CommandJSON.string(output))
      return
    }
    if let done = output.reexamination {
      say(
        "re-examined \(done.examined) unrouted notifications: \(done.routed) routed, "
          + "\(done.stillUnrouted) still naming no app, \(done.refused) not this app's")
    }
    var table = TextTable(
      title: "\(output.notifications.count) of \(output.total) notifications not understood"
        + (output.nextCursor.map { "; the next page: --cursor \($0)" } ?? ""),
      header: ["notificationUUID", "type", "subtype", "bodies", "signed by Apple", "stored in"])
    for item in output.notifications {
      table.rows.append([
        item.notificationUUID, item.notificationType ?? "-", item.subtype ?? "-",
        item.bodyObjects.isEmpty ? "-" : item.bodyObjects.joined(separator: ","),
        item.signedDate.map { $0.date.formatted(.iso8601) } ?? "-",
        item.routedTo.map { "\(item.streamId), routed since to \($0)" } ?? item.streamId,
      ])
    }
    say(table.render().trimmingCharacters(in: .newlines))
  }
}
