import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger grants create|revoke|list`: operators' grants of entitlements.
struct GrantsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "grants",
    abstract: "Give accounts an entitlement for a period, end a grant, list grants.",
    discussion: """
      A grant is StoreLedger's own event (never Apple's evidence): it decides the entitlement \
      by rule E7 with the source grant:<id>, explanations and the change feed name it, and \
      nothing changes at Apple (billing is untouched).

      Examples:
        storeledger grants create 9f1c… --entitlement pro --days 30 \\
          --reason "outage on Nov 20"
        storeledger accounts transitions --status billing_retry \\
          --from 2026-11-20T08:00:00Z --before 2026-11-20T14:00:00Z \\
          --format csv --all | cut -d, -f2 | tail -n +2 \\
          | storeledger grants create - --entitlement pro --days 7 \\
            --reason outage --key outage-11-20
        storeledger grants revoke 9f1c… GRANT_ID --reason "resolved"
        storeledger grants list 9f1c…
      """,
    subcommands: [GrantsCreateCommand.self, GrantsRevokeCommand.self, GrantsListCommand.self])

  /// The refusals that are the operator's to fix, told as a usage error (exit 64), not a fault.
  static let refusals: Set<LedgerError.Code> = [
    .invalidRequest, .unknownEntitlement, .rangeReversed,
  ]

  static func who(_ by: String?) -> String {
    by ?? ProcessInfo.processInfo.environment["USER"].map { "cli:\($0)" } ?? "cli"
  }

  static func line(_ grant: SupportGrantStatus) -> String {
    let until = grant.endsAt.map { ISO8601DateFormatter().string(from: $0.date) } ?? "until ended"
    return
      "\(grant.grantId)  \(grant.appAccountToken)  \(grant.entitlement)  \(grant.state.rawValue)  "
      + "\(ISO8601DateFormatter().string(from: grant.startsAt.date)) → \(until)  by \(grant.grantedBy): \(grant.reason)"
  }
}

struct GrantsCreateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Grant an entitlement to one or more accounts (- reads tokens from standard input).")

  @Argument(help: "appAccountTokens, or - to read them one per line.") var tokens: [String]
  @Option(help: "The entitlement to grant.") var entitlement: String
  @Option(help: "How many days it holds (or --ends-at).") var days: Int?
  @Option(help: "When it stops, RFC 3339 (default with neither: until revoked).") var endsAt:
    String?
  @Option(help: "When it begins, RFC 3339 (default now).") var startsAt: String?
  @Option(help: "Why (kept in the log).") var reason: String
  @Option(help: "Who gives it (default: cli:$USER).") var by: String?
  @Option(
    help:
      "An idempotency key: running again with it grants nobody twice (required for several accounts)."
  )
  var key: String?
  @Flag(help: "Grant an entitlement no product of the catalog grants.") var force = false
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    if days != nil && endsAt != nil { throw ValidationError("give --days or --ends-at, not both") }
    if let days, !(1...3650).contains(days) { throw ValidationError("--days is 1 to 3650") }
  }

  func run() async throws {
    var list = tokens
    if list == ["-"] {
      let text: String
      do {
        text = try InputReader.read("-")
      } catch {
        throw ValidationError(error.message)
      }
      list = text.split(whereSeparator: \.isNewline).map {
        $0.trimmingCharacters(in: .whitespaces)
      }.filter { !$0.isEmpty }
    }
    let now = Date()
    let starts = try OptionTime.instant(startsAt, "--starts-at")?.date
    let ends =
      try days.map { (starts ?? now).addingTimeInterval(Double($0) * 86_400) }
      ?? OptionTime.instant(endsAt, "--ends-at")?.date
    guard !list.isEmpty else {
      throw ValidationError("name the accounts (or - for standard input)")
    }
    if list.count > 1 && key == nil {
      throw ValidationError(
        "several accounts need --key, so that running again grants nobody twice")
    }
    let (entitlement, reason, force, json, key) = (entitlement, reason, force, json, key)
    let who = GrantsCommand.who(by)
    let accounts = list
    try await ledger.withLedger("storeledger.grants") { ledger, _ in
      let grants = SupportGrants(ledger: ledger)
      do {
        if accounts.count == 1 {
          let grant = try await grants.grant(
            SupportGrantRequest(
              appAccountToken: accounts[0], entitlement: entitlement, startsAt: starts,
              endsAt: ends, reason: reason, by: who, idempotencyKey: key, force: force), now: now)
          say(json ? try CommandJSON.string(grant) : "granted " + GrantsCommand.line(grant))
          return
        }
        let receipt = try await grants.grant(
          accounts, entitlement: entitlement, startsAt: starts, endsAt: ends, reason: reason,
          by: who, idempotencyKey: key ?? "", force: force, now: now)
        if json {
          say(try CommandJSON.string(receipt))
        } else {
          say(
            "granted \(receipt.granted.count), already granted \(receipt.alreadyGranted.count), "
              + "refused \(receipt.refused.count) (key \(receipt.idempotencyKey))")
          for refusal in receipt.refused {
            say("refused \(refusal.appAccountToken): \(refusal.message)")
          }
        }
      } catch let error as LedgerError where GrantsCommand.refusals.contains(error.code) {
        throw ValidationError(error.message)
      }
    }
  }
}

struct GrantsRevokeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revoke", abstract: "End a grant now (ending it again changes nothing).")

  @Argument(help: "The account's appAccountToken.") var token: String
  @Argument(help: "The grant's id.") var grantId: String
  @Option(help: "Why (kept in the log).") var reason: String
  @Option(help: "Who ends it (default: cli:$USER).") var by: String?
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let (token, grantId, reason, json) = (token, grantId, reason, json)
    let who = GrantsCommand.who(by)
    try await ledger.withLedger("storeledger.grants") { ledger, _ in
      do {
        let grant = try await SupportGrants(ledger: ledger).end(
          grantId: grantId, of: token, reason: reason, by: who)
        say(json ? try CommandJSON.string(grant) : "ended " + GrantsCommand.line(grant))
      } catch let error as LedgerError where GrantsCommand.refusals.contains(error.code) {
        throw ValidationError(error.message)
      }
    }
  }
}

struct GrantsListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "The grants given to an account, newest first.")

  @Argument(help: "The account's appAccountToken.") var token: String
  @Option(help: "Where each stood at this time (a date, RFC 3339 or Unix ms) (default now).")
  var at: String?
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let time = try OptionTime.instant(at, "--at")?.date ?? Date()
    let (token, json) = (token, json)
    try await ledger.withLedger("storeledger.grants") { ledger, _ in
      let grants = try await SupportGrants(ledger: ledger).grants(of: token, at: time)
      if json {
        say(try CommandJSON.string(grants))
      } else if grants.isEmpty {
        say("no grants")
      } else {
        for grant in grants { say(GrantsCommand.line(grant)) }
      }
    }
  }
}
