import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct EventsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "events",
    abstract: "An account's history as stored: every event of its streams, oldest first.",
    discussion: """
      One line per event: stream and version, type, when Apple signed it, when it was \
      recorded, its idempotency key and where it came from. --json adds the decoded payload and \
      the original JWS.

      Examples:
        storeledger events 9f1c2b7e-… --database-url postgres://…
        storeledger events 9f1c2b7e-… \\
          --json … | jq '.[].payload.notification.notificationType'
      """)

  @Argument(help: "The appAccountToken.") var token: String
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the events as a JSON array.") var json = false

  func run() async throws {
    let token = token
    let recorded = try await ledger.withLedger("storeledger.events") { ledger, _ in
      try await ledger.events(for: token)
    }
    let events = try recorded.map(StoredEvent.init)
    if json {
      say(try CommandJSON.string(events))
      return
    }
    var table = TextTable(
      title: "\(events.count) events of \(token)",
      header: ["stream", "v", "type", "signed by Apple", "recorded", "source"])
    for event in events {
      table.rows.append([
        event.streamId, "\(event.streamVersion)", event.eventType,
        event.appleSignedAt.map { $0.formatted(.iso8601) } ?? "-",
        event.recordedAt.formatted(.iso8601), event.source ?? "-",
      ])
    }
    say(table.render().trimmingCharacters(in: .newlines))
  }
}
