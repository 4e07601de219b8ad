import AppStoreServerAPI
import ArgumentParser
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore

/// `storeledger seats show|claim|release|associate|reconcile`.
struct SeatsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "seats",
    abstract: "The seats of a group subscription with developer-hosted invitations.",
    discussion: """
      Members of such a group get no App Store transaction: the ledger's seat claims are \
      their access, and Apple is told through Claim Seat, Unclaim Seat and Associate Seat \
      (App Store Server API 1.23, Sandbox only for now). Each command is safe to run again: \
      a member with a claim gets it back, a claim whose answer was lost is sent again with \
      its request identifier (Apple then answers with the same seat), a released claim \
      stays released.
      """,
    subcommands: [
      SeatsShowCommand.self, SeatsClaimCommand.self, SeatsReleaseCommand.self,
      SeatsAssociateCommand.self, SeatsReconcileCommand.self,
    ])

  /// The seat ledger of the ledger `options` open, with API credentials when given.
  static func withSeats<Result: Sendable>(
    _ label: String, _ options: LedgerOptions, _ api: AppStoreAPIOptions, needsApple: Bool,
    _ body: @Sendable (SeatLedger) async throws -> Result
  ) async throws -> Result {
    try await options.withLedger(label) { ledger, logger in
      let client =
        needsApple ? try api.client(for: ledger, options: options, logger: logger).0 : nil
      return try await body(SeatLedger(ledger: ledger, apple: client))
    }
  }

  static func text(_ report: SeatLedger.Report) -> String {
    var lines = [
      "subscription \(report.originalTransactionId) (\(report.environment)), purchaser "
        + "\(report.appAccountToken ?? "unknown"), status \(report.status), "
        + (report.entitled ? "entitled" : "not entitled")
    ]
    if let seats = report.seats {
      lines.append(
        "seats: \(seats.total) in force, \(seats.revoked) revoked, \(seats.claimed) claimed, "
          + "\(seats.available) available"
          + (seats.renewalQuantity.map { ", \($0) renew" } ?? "")
          + (seats.overClaimed.isEmpty
            ? "" : "; over-claimed: \(seats.overClaimed.joined(separator: ", ")) (release some)"))
    } else {
      lines.append("not a multiseat subscription")
    }
    var table = TextTable(
      title: "\(report.claims.count) claims",
      header: ["seatClaimId", "member", "state", "claimed", "ended", "appTransactionId"])
    for claim in report.claims {
      table.rows.append([
        claim.seatClaimId ?? "-", claim.appAccountToken ?? "-",
        claim.state.rawValue + (claim.overClaimed ? " (over)" : ""),
        claim.claimedAt.map(ListTimes.text) ?? "-", claim.endedAt.map(ListTimes.text) ?? "-",
        claim.appTransactionId ?? "-",
      ])
    }
    lines.append(table.render().trimmingCharacters(in: .newlines))
    return lines.joined(separator: "\n")
  }

  static func text(_ claim: SeatLedger.Claim) -> String {
    "seat claim \(claim.seatClaimId ?? "(pending)") for \(claim.appAccountToken ?? "?"): "
      + claim.state.rawValue
  }
}

struct SeatsShowCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show", abstract: "A group subscription's seats and every claim.",
    discussion: """
      Example:
        storeledger seats show 2000000123456789 --database-url …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The subscription's originalTransactionId.") var originalTransactionId: String
  @Option(help: "The moment (a date, RFC 3339 or Unix ms); now by default.") var at: String?
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let time = try at.map { try OptionTime.date($0, "--at") } ?? Date()
    let id = originalTransactionId
    let report = try await SeatsCommand.withSeats(
      "storeledger.seats", ledger, api, needsApple: false
    ) { seats in try await seats.show(id, at: time) }
    say(json ? try CommandJSON.string(report) : SeatsCommand.text(report))
  }
}

struct SeatsClaimCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "claim", abstract: "Claim a seat for a member (Claim Seat at Apple).",
    discussion: """
      Example:
        storeledger seats claim 2000000123456789 9f1c2b7e-… \\
          --app-transaction-id 7012… --api-url sandbox \\
          --key-id … --issuer-id … --p8 key.p8 …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The subscription's originalTransactionId.") var originalTransactionId: String
  @Argument(help: "The member's appAccountToken.") var member: String
  @Option(help: "The member's appTransactionId, to link their Apple Account at once.")
  var appTransactionId: String?
  @Option(help: "A request identifier for a new claim (default: one the ledger makes).")
  var requestId: String?
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let (id, member, download, request) = (
      originalTransactionId, member, appTransactionId, requestId
    )
    let claimed = try await SeatsCommand.withSeats(
      "storeledger.seats", ledger, api, needsApple: true
    ) { seats in
      try await seats.claim(
        id, for: member, appTransactionId: download, requestIdentifier: request)
    }
    say(
      json
        ? try CommandJSON.string(claimed)
        : (claimed.wasDuplicate ? "already " : "") + SeatsCommand.text(claimed.claim))
  }
}

struct SeatsReleaseCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "release", abstract: "Release a seat claim (Unclaim Seat at Apple).",
    discussion: """
      Example:
        storeledger seats release 2000000123456789 5b0c2d4e-… --api-url sandbox …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The subscription's originalTransactionId.") var originalTransactionId: String
  @Argument(help: "The seatClaimId.") var seatClaimId: String
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let (id, claim) = (originalTransactionId, seatClaimId)
    let released = try await SeatsCommand.withSeats(
      "storeledger.seats", ledger, api, needsApple: true
    ) { seats in try await seats.release(id, seatClaimId: claim) }
    say(json ? try CommandJSON.string(released) : SeatsCommand.text(released))
  }
}

struct SeatsAssociateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "associate",
    abstract: "Tell Apple which download occupies a claimed seat (Associate Seat).",
    discussion: """
      Example:
        storeledger seats associate 2000000123456789 5b0c2d4e-… 7012… \\
          --api-url sandbox …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The subscription's originalTransactionId.") var originalTransactionId: String
  @Argument(help: "The seatClaimId.") var seatClaimId: String
  @Argument(help: "The member's appTransactionId.") var appTransactionId: String
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let (id, claim, download) = (originalTransactionId, seatClaimId, appTransactionId)
    let associated = try await SeatsCommand.withSeats(
      "storeledger.seats", ledger, api, needsApple: true
    ) { seats in try await seats.associate(id, seatClaimId: claim, appTransactionId: download) }
    say(json ? try CommandJSON.string(associated) : SeatsCommand.text(associated))
  }
}

struct SeatsReconcileCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reconcile",
    abstract: "Compare the ledger's claims with Get Seat Info; record a disagreement.",
    discussion: """
      Exit code 0 when Apple and the ledger agree, 1 when they do not (the disagreement is \
      recorded as evidence in the seat stream; nothing is written over the claims).

      Example:
        storeledger seats reconcile 2000000123456789 --api-url sandbox …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The subscription's originalTransactionId.") var originalTransactionId: String
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let id = originalTransactionId
    let result = try await SeatsCommand.withSeats(
      "storeledger.seats", ledger, api, needsApple: true
    ) { seats in try await seats.reconcile(id) }
    if json {
      say(try CommandJSON.string(result))
    } else if result.agrees {
      say("Apple and the ledger agree: \(result.ledgerClaims.count) claims")
    } else {
      say(
        "disagreement\(result.recorded ? " (recorded)" : ""): at Apple only "
          + "\(result.onlyAtApple), in the ledger only \(result.onlyInLedger)"
          + (result.totalDiffers
            ? "; seats \(result.apple.totalSeatCount.map(String.init) ?? "-") at Apple, "
              + "\(result.ledgerTotal.map(String.init) ?? "-") in the ledger" : ""))
    }
    if !result.agrees { throw ExitCode(1) }
  }
}
