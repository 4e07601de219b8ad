import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger erase TOKEN… --reason TEXT`: a customer's personal data out of the log and
/// every derived table, the log still provable.
struct EraseCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "erase",
    abstract: "Erase customers' personal data; the log stays verifiable.",
    discussion: """
      Every row of the accounts' streams, their refund consent and every row elsewhere that \
      names them or their transactions becomes a tombstone that keeps its place and hash; \
      views, changes, deliveries, refund requests, indexes and revenue rows made from them go. \
      The erasure is recorded as an event (who asked, why; no personal data) and `storeledger \
      audit` checks it. Runs as the database's owner role: the login of --database-url must \
      be a member of storeledger_owner (or a superuser). Accounts sharing a purchase are \
      erased together. Erasing again changes nothing.

      Later data naming an erased account (Apple keeps notifying until a subscription ends): \
      --later quarantine (default) stores it attached to no account; --later attach indexes \
      it as any new data.

      Examples:
        storeledger erase 9f1c… --reason "GDPR request 4411" --requested-by dpo
        storeledger erase --list
      """)

  @Argument(help: "The appAccountTokens of the accounts to erase.") var tokens: [String] = []
  @Option(help: "Why (kept in the log: no personal data).") var reason: String?
  @Option(help: "Who asked (a person, role or ticket; default: the OS user).")
  var requestedBy: String?
  @Option(help: "Later data naming the accounts: quarantine or attach.")
  var later: String = LaterDataRule.quarantine.rawValue
  @Flag(help: "List the erasures the log records instead.") var list = false
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    if list {
      guard tokens.isEmpty, reason == nil else {
        throw ValidationError("--list takes no tokens and no --reason")
      }
      return
    }
    guard !tokens.isEmpty else { throw ValidationError("name the appAccountToken(s) to erase") }
    guard let reason, !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
      throw ValidationError("--reason says why the data is erased (kept in the log)")
    }
    guard LaterDataRule(rawValue: later) != nil else {
      throw ValidationError("--later is quarantine or attach")
    }
  }

  func run() async throws {
    if list {
      let records = try await ledger.withLedger("storeledger.erase") { ledger, _ in
        try await AccountErasure(ledger: ledger).erasures()
      }
      if json {
        say(try CommandJSON.string(records))
      } else if records.isEmpty {
        say("no erasures")
      } else {
        for record in records { say(Self.text(record)) }
      }
      return
    }
    let who =
      requestedBy ?? ProcessInfo.processInfo.environment["USER"] ?? "storeledger-cli"
    let rule = LaterDataRule(rawValue: later) ?? .quarantine
    let receipt = try await ledger.withLedger("storeledger.erase") { ledger, _ in
      do {
        return try await AccountErasure(ledger: ledger).erase(
          tokens, reason: reason ?? "", requestedBy: who, later: rule)
      } catch let error as LedgerError where error.code == .invalidRequest {
        throw ValidationError(error.message)
      }
    }
    if json {
      say(try CommandJSON.string(receipt))
      return
    }
    let id = receipt.erasureId.uuidString.lowercased()
    switch receipt.outcome {
    case .alreadyErased:
      say("already erased by erasure \(id): nothing changed")
    case .erased:
      say(
        "erased \(receipt.erasedRows) rows in \(receipt.erasedStreams) streams of "
          + "\(tokens.count) account\(tokens.count == 1 ? "" : "s") (erasure \(id), rows digest "
          + "\(receipt.rowsDigest ?? "-")); later data: \(rule.rawValue)")
      say(
        "backups and WAL archives still hold the data until they expire; the dead row versions' "
          + "bytes stay in the table files until VACUUM FULL or pg_repack rewrites them (see "
          + "docs/trust.md)")
    }
  }

  static func text(_ record: ErasureRecord) -> String {
    "\(record.erasedAt.formatted(.iso8601)) \(record.erasureId.uuidString.lowercased()) "
      + "\(record.recordedRows) rows, \(record.accounts) account(s), by \(record.requestedBy): "
      + "\(record.reason)" + (record.isIntact ? "" : " — DOES NOT MATCH THE LOG")
  }
}
