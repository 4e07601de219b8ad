import AppStoreServerAPI
import ArgumentParser
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore

/// `storeledger consumption …`: Apple's refund requests and StoreLedger's answers.
struct ConsumptionCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "consumption",
    abstract: "Refund requests (CONSUMPTION_REQUEST): list, show, answer, try a policy.",
    discussion: """
      Every CONSUMPTION_REQUEST the ledger stores opens a refund request with Apple's 12-hour \
      deadline. `serve` with API credentials and --consumption-policy answers them; these \
      commands show them and let an operator answer one or try another policy.

      Examples:
        storeledger consumption list --state open
        storeledger consumption show 6f2c…  (a request id or a transaction id)
        storeledger consumption answer 6f2c… --refund-preference DECLINE --key-id … \\
          --p8 …
        storeledger consumption policy --dry-run --policy new-policy.json
      """,
    subcommands: [List.self, Show.self, Answer.self, Policy.self])

  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Requests, newest first, with the counts over all of them.")
    @OptionGroup var ledger: LedgerOptions
    @Option(help: "open, pending, sending, answered, expired, failed, skipped (comma-separated).")
    var state: String?
    @Option(help: "At most this many requests (1-1000).") var limit = 100
    @Option(help: "Continue after the page before (its `next page` cursor).") var cursor: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let states = try ConsumptionCommand.states(state)
      let (limit, cursor) = (limit, cursor)
      let (page, metrics) = try await ledger.withLedger("storeledger.consumption") {
        ledger, _ in
        (
          try await ConsumptionRequests(ledger: ledger).page(
            states: states, limit: limit, cursor: cursor),
          try await ConsumptionRequests(ledger: ledger).metrics()
        )
      }
      let requests = page.rows
      if json {
        say(
          try CommandJSON.string(
            ConsumptionListing(
              requests: requests, total: page.total, nextCursor: page.nextCursor,
              metrics: metrics)))
        return
      }
      var table = TextTable(
        title: "refund requests",
        header: ["request", "transaction", "product", "state", "asked", "preference", "Apple"])
      for request in requests {
        table.rows.append([
          request.requestId, request.transactionId, request.productId ?? "-",
          request.state.rawValue + (request.late ? " (late)" : ""),
          request.requestedAt.date.formatted(.iso8601),
          request.answer?.refundPreference?.rawValue ?? "-",
          request.appleDecision?.notificationType ?? "-",
        ])
      }
      say(
        table.render() + "\(requests.count) of \(page.total) requests"
          + (page.nextCursor.map { "; the next page: --cursor \($0)" } ?? "") + "\n"
          + ConsumptionCommand.text(metrics))
    }
  }

  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "One request: the answer, its reasons, its events and Apple's decision.")
    @OptionGroup var ledger: LedgerOptions
    @Argument(help: "The request id (the notification's UUID) or the transaction id.") var id:
      String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let id = id
      let report = try await ledger.withLedger("storeledger.consumption") { ledger, _ in
        try await ConsumptionRequests(ledger: ledger).request(id)
      }
      say(json ? try CommandJSON.string(report) : ConsumptionCommand.text(report))
    }
  }

  struct Answer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Answer an open request now, with the policy's answer or your own choices.")
    @OptionGroup var ledger: LedgerOptions
    @OptionGroup var api: AppStoreAPIOptions
    @Argument(help: "The request id or the transaction id.") var id: String
    @Option(help: "The consumption policy file (JSON).") var policy: String?
    @Option(help: "DECLINE, GRANT_FULL or GRANT_PRORATED instead of the policy's.")
    var refundPreference: String?
    @Option(help: "DELIVERED or UNDELIVERED_… instead of what the ledger knows.")
    var deliveryStatus: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let policy = try ConsumptionCommand.policy(self.policy)
      let override = ConsumptionWorker.Override(
        refundPreference: refundPreference.map(RefundPreference.init(rawValue:)),
        deliveryStatus: deliveryStatus.map(DeliveryStatus.init(rawValue:)))
      let (api, id) = (api, id)
      let report = try await ledger.withLedger("storeledger.consumption") { ledger, logger in
        let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
        let worker = ConsumptionWorker(
          ledger: ledger, client: client,
          configuration: ConsumptionWorkerConfiguration(policy: policy), logger: logger)
        return try await worker.answer(id, override: override)
      }
      say(json ? try CommandJSON.string(report) : ConsumptionCommand.text(report))
    }
  }

  struct Policy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "What a policy would have answered for past requests (sends nothing).")
    @OptionGroup var ledger: LedgerOptions
    @Option(help: "The consumption policy file (JSON).") var policy: String?
    @Flag(help: "Required: only shows, sends and stores nothing.") var dryRun = false
    @Option(help: "The newest this many requests.") var limit = 100
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
      guard dryRun else { throw ValidationError("give --dry-run: this command only shows") }
    }

    func run() async throws {
      let policy = try ConsumptionCommand.policy(self.policy)
      let limit = limit
      let lines = try await ledger.withLedger("storeledger.consumption") { ledger, logger in
        try await ConsumptionRequests(ledger: ledger).dryRun(policy: policy, limit: limit)
      }
      if json {
        say(try CommandJSON.string(lines))
        return
      }
      var table = TextTable(
        title: "policy dry run",
        header: ["request", "transaction", "state", "sent", "policy would send", "Apple"])
      for line in lines {
        table.rows.append([
          line.requestId, line.transactionId, line.state.rawValue,
          line.sent.map(ConsumptionCommand.brief) ?? "-",
          line.wouldSend.map(ConsumptionCommand.brief) ?? "nothing: \(line.skipReason ?? "")",
          line.appleDecision?.notificationType ?? "-",
        ])
      }
      say(
        table.render() + "\(lines.filter(\.changed).count) of \(lines.count) answers would change")
    }
  }
}

extension ConsumptionCommand {
  static func states(_ text: String?) throws -> [ConsumptionRequest.Phase] {
    guard let text, !text.isEmpty else { return [] }
    return try text.split(separator: ",").flatMap { name -> [ConsumptionRequest.Phase] in
      if name == "open" { return [.pending, .sending] }
      guard let state = ConsumptionRequest.Phase(rawValue: String(name)) else {
        throw ValidationError(
          "--state takes open, "
            + ConsumptionRequest.Phase.allCases.map(\.rawValue).joined(separator: ", "))
      }
      return [state]
    }
  }

  /// The policy file, or the default (no consent: nothing is sent).
  static func policy(_ path: String?) throws -> ConsumptionPolicy {
    guard let path else { return ConsumptionPolicy() }
    let bytes = try InputReader.bytes(path)
    do {
      return try JSONDecoder().decode(ConsumptionPolicy.self, from: Data(bytes))
    } catch let error as ConsumptionPolicy.ValidationError {
      throw ValidationError("\(path): \(error.description)")
    } catch {
      throw ValidationError(
        "\(path) is not a consumption policy: a JSON object such as "
          + #"{"consent": "recorded", "undelivered": "GRANT_FULL", "consumables": "#
          + #"{"grantFullBelowPercent": 10, "declineAbovePercent": 50}}"#)
    }
  }

  static func brief(_ answer: ConsumptionInformation) -> String {
    var parts = [answer.deliveryStatus.rawValue]
    if let percentage = answer.consumptionPercentage {
      parts.append("\(percentage / 1000) % spent")
    }
    parts.append(answer.refundPreference?.rawValue ?? "no preference")
    return parts.joined(separator: ", ")
  }

  static func text(_ metrics: ConsumptionMetrics) -> String {
    "\(metrics.received) received: \(metrics.pending) open, \(metrics.answered) answered "
      + "(\(metrics.late) late), \(metrics.expired) expired, \(metrics.failed) failed, "
      + "\(metrics.skipped) skipped; after an answer Apple refunded \(metrics.refundedAfterAnswer) "
      + "and declined \(metrics.declinedAfterAnswer)"
  }

  static func text(_ report: ConsumptionRequestReport) -> String {
    var lines = [
      "request \(report.requestId) (\(report.environment)): \(report.state.rawValue)"
        + (report.late ? ", answered late" : ""),
      "purchase: transaction \(report.transactionId), \(report.productId ?? "unknown product")"
        + " (\(report.productType?.rawValue ?? "type unknown"))",
      "asked: \(report.requestedAt.date.formatted(.iso8601)) "
        + "(\(report.reason?.rawValue ?? "no reason given")); deadline "
        + report.deadline.date.formatted(.iso8601),
    ]
    if let answer = report.answer {
      lines.append(
        "answer (\(report.answeredBy ?? "?"), \(report.attempts) attempts): " + brief(answer))
      lines += report.reasons.map { "  because \($0)" }
    }
    if let problem = report.problem { lines.append("problem: \(problem)") }
    lines.append(
      "Apple: "
        + (report.appleDecision.map {
          "\($0.notificationType) at \($0.signedDate?.date.formatted(.iso8601) ?? "?")"
        } ?? "no decision yet"))
    for event in report.events ?? [] {
      lines.append("  \(event.version). \(event.eventType)  \(event.summary)")
    }
    return lines.joined(separator: "\n")
  }
}

/// `consumption list --json`: the requests and the counts over all of them.
struct ConsumptionListing: Encodable {
  let requests: [ConsumptionRequestReport]
  /// How many requests the list holds (all pages), and the cursor of the next page.
  let total: Int
  let nextCursor: String?
  let metrics: ConsumptionMetrics
}
