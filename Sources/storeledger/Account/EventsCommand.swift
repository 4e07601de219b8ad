import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

struct EventsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "events",
    abstract: "An account's history as stored: every event of its streams, oldest first.",
    discussion: """
      One line per event: stream and version, type, when Apple signed it, when it was
      recorded, its idempotency key and where it came from. --json adds the decoded payload and
      the original JWS.

      Examples:
        storeledger events 9f1c2b7e-… --database-url postgres://… --bundle-id com.example.app
        storeledger events 9f1c2b7e-… --json … | jq '.[].payload.notification.notificationType'
      """)

  @Argument(help: "The appAccountToken.") var token: String
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the events as a JSON array.") var json = false

  struct Event: Encodable {
    var streamId: String
    var streamVersion: Int64
    var eventType: String
    var idempotencyKey: String
    var appleSignedAt: Date?
    var recordedAt: Date
    var source: String?
    var payload: JSONValue
    var rawSigned: String?
  }

  func run() async throws {
    let token = token
    let recorded = try await ledger.withLedger("storeledger.events") { ledger, _ in
      try await ledger.events(for: token)
    }
    let events = recorded.map { event in
      Event(
        streamId: event.streamId, streamVersion: event.streamVersion, eventType: event.eventType,
        idempotencyKey: event.idempotencyKey, appleSignedAt: event.appleSignedAt,
        recordedAt: event.recordedAt, source: Self.source(event.metadata),
        payload: (try? JSONDecoder().decode(JSONValue.self, from: Data(event.payload))) ?? .null,
        rawSigned: event.rawSigned)
    }
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

  static func source(_ metadata: [UInt8]) -> String? {
    (try? JSONDecoder().decode([String: JSONValue].self, from: Data(metadata)))?["source"]
      .flatMap { if case .string(let text) = $0 { text } else { nil } }
  }
}
