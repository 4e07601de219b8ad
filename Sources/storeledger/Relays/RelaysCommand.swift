import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger relays list|add|remove|attempts|dead|retry`: Apple's notifications sent on to
/// other systems, and what each was sent.
struct RelaysCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "relays",
    abstract: "Send Apple's notifications on to other systems, and see what each was sent.",
    discussion: """
      A relay target (a staging backend, the vendor you move from) receives every \
      notification this ledger stores from the moment it is added, the body exactly as Apple \
      sent it, retried until it answers 2xx (dead-lettered after three days). Each attempt \
      is recorded in the log; `storeledger serve` relays.

      Examples:
        storeledger relays add staging \\
          --url "https://staging.example.com/apple?token=…" \\
          --environment Sandbox
        storeledger relays list
        storeledger relays attempts staging --limit 20
        storeledger relays attempts staging --notification 7f3a…
        storeledger relays dead staging
        storeledger relays retry staging
        storeledger relays remove staging
      """,
    subcommands: [
      RelaysListCommand.self, RelaysAddCommand.self, RelaysRemoveCommand.self,
      RelaysAttemptsCommand.self, RelaysDeadCommand.self, RelaysRetryCommand.self,
    ])

  static func time(_ timestamp: Timestamp) -> String {
    ISO8601DateFormatter().string(from: timestamp.date)
  }

  static func describe(_ target: RelayTarget) -> String {
    let types = target.notificationTypes?.joined(separator: ",") ?? "every type"
    return
      "\(target.name) → \(target.urlKey) (\(target.environments.joined(separator: ", ")); "
      + "\(types))"
  }

  /// Runs `body`, a refusal for a bad argument as a usage error (exit 2).
  static func refusing(_ body: () async throws -> Void) async throws {
    do {
      try await body()
    } catch let error as LedgerError
      where error.code == .invalidRequest || error.code == .invalidCursor
    {
      throw ValidationError(error.message)
    }
  }
}

struct RelaysListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "The relay targets, with what each was sent and what waits.")

  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let json = json
    try await ledger.withLedger("storeledger.relays") { ledger, _ in
      let targets = try await Relays(ledger: ledger).targets()
      if json {
        struct Entry: Encodable {
          let target: RelayTarget.Shown
          let counts: RelayTargetCounts
        }
        say(try CommandJSON.string(targets.map { Entry(target: .init($0.0), counts: $0.1) }))
        return
      }
      var table = TextTable(
        title: "Relay targets",
        header: [
          "name", "destination", "environments", "types", "delivered", "retrying", "waiting",
          "dead",
        ])
      for (target, counts) in targets {
        table.rows.append([
          target.name, target.urlKey, target.environments.joined(separator: ","),
          target.notificationTypes?.joined(separator: ",") ?? "all", "\(counts.delivered)",
          "\(counts.retrying)", "\(counts.waiting)", "\(counts.dead)",
        ])
      }
      print(table.render(), terminator: "")
    }
  }
}

struct RelaysAddCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add", abstract: "Add a relay target (notifications stored from now on).")

  @Argument(help: "Its name: letters, digits, - or _ (names its log stream relay:<name>).")
  var name: String
  @Option(help: "Where to POST: an http(s) URL (its query may hold a credential; never shown).")
  var url: String
  @Option(name: .customLong("environment"), help: "Production or Sandbox (repeat; default both).")
  var environments: [String] = []
  @Option(name: .customLong("type"), help: "A notification type to relay (repeat; default all).")
  var types: [String] = []
  @Option(help: "Who adds it (default: cli:$USER).") var by: String?
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let (name, url, environments, types) = (name, url, environments, types)
    let who = GrantsCommand.who(by)
    try await ledger.withLedger("storeledger.relays") { ledger, _ in
      try await RelaysCommand.refusing {
        let target = try await Relays(ledger: ledger).add(
          name: name, url: url, environments: environments.isEmpty ? nil : environments,
          notificationTypes: types.isEmpty ? nil : types, by: who)
        say("added \(RelaysCommand.describe(target))")
      }
    }
  }
}

struct RelaysRemoveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Remove a relay target (its attempts stay in the log).")

  @Argument(help: "The target's name.") var name: String
  @Option(help: "Who removes it (default: cli:$USER).") var by: String?
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let name = name
    let who = GrantsCommand.who(by)
    try await ledger.withLedger("storeledger.relays") { ledger, _ in
      let target = try await Relays(ledger: ledger).remove(name: name, by: who)
      say("removed \(RelaysCommand.describe(target))")
    }
  }
}

struct RelaysAttemptsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "attempts",
    abstract: "What a target was sent, and when: each attempt from the log, newest first.")

  @Argument(help: "The target's name (also a removed one).") var name: String
  @Option(help: "Only the attempts of this notificationUUID.") var notification: String?
  @Option(help: "Attempts older than this stream version (the next page).") var before: Int64?
  @Option(help: "How many (1 to 1000).") var limit = 50
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let (name, notification, before, limit, json) = (name, notification, before, limit, json)
    try await ledger.withLedger("storeledger.relays") { ledger, _ in
      try await RelaysCommand.refusing {
        let page = try await Relays(ledger: ledger).attemptsPage(
          of: name, notificationUUID: notification, before: before, limit: limit)
        let attempts = page.attempts
        if json {
          say(try CommandJSON.string(attempts))
          return
        }
        var table = TextTable(
          title:
            "Attempts to relay to \(name.lowercased()): \(attempts.count) of \(page.total ?? attempts.count)",
          header: ["v", "sent", "notification", "type", "try", "outcome", "status", "sha256"])
        for recorded in attempts {
          let attempt = recorded.attempt
          table.rows.append([
            "\(recorded.streamVersion)", RelaysCommand.time(attempt.sentAt),
            String(attempt.notification.dropFirst(5)), attempt.notificationType ?? "-",
            "\(attempt.attempt)", attempt.outcome.rawValue,
            attempt.status.map(String.init) ?? (attempt.error ?? "-"),
            String(attempt.bodySHA256.prefix(12)),
          ])
        }
        print(table.render(), terminator: "")
        if let older = page.nextBefore { say("older: --before \(older)") }
      }
    }
  }
}

struct RelaysDeadCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dead", abstract: "A target's dead letters: notifications whose retries ran out.")

  @Argument(help: "The target's name.") var name: String
  @Option(help: "How many (1 to 1000).") var limit = 100
  @Option(help: "Continue after the page before (its `next page` cursor).") var cursor: String?
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let (name, limit, cursor) = (name, limit, cursor)
    try await ledger.withLedger("storeledger.relays") { ledger, _ in
      try await RelaysCommand.refusing {
        let page = try await Relays(ledger: ledger).deliveriesPage(
          of: name, state: .dead, limit: limit, cursor: cursor)
        let dead = page.rows
        var table = TextTable(
          title: "Dead letters of \(name.lowercased()): \(dead.count) of \(page.total)"
            + (page.nextCursor.map { "; the next page: --cursor \($0)" } ?? ""),
          header: ["notification", "type", "attempts", "last answer"])
        for delivery in dead {
          table.rows.append([
            String(delivery.notificationKey.dropFirst(5)), delivery.notificationType ?? "-",
            "\(delivery.attempts)",
            delivery.lastStatus.map { "HTTP \($0)" } ?? (delivery.lastError ?? "-"),
          ])
        }
        print(table.render(), terminator: "")
        if !dead.isEmpty { say("send them again: storeledger relays retry \(name.lowercased())") }
      }
    }
  }
}

struct RelaysRetryCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "retry", abstract: "Send a target's dead letters again, with retries anew.")

  @Argument(help: "The target's name.") var name: String
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let name = name
    try await ledger.withLedger("storeledger.relays") { ledger, _ in
      let queued = try await Relays(ledger: ledger).retryDead(of: name)
      say("queued \(queued) dead letters of \(name.lowercased()) again")
    }
  }
}
