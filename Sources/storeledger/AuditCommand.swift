import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

struct AuditCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "audit",
    abstract: "Prove the log and the read models intact; exit 0 only when all is consistent.",
    discussion: """
      Checks every stream's hash chain and version sequence, verifies every stored JWS again \
      offline at its signedDate against the trusted roots (--root-certs, default Apple Root \
      CA - G3) and compares it with the stored payload, and compares every current account \
      view with the projection rebuilt from the log. Prints each difference (kind, stream or \
      account, version or field, live, rebuilt) and exits 1 when there is any. Reads the log \
      page by page.

      With --account TOKEN [--at T]: what that account had at T (default now), each \
      entitlement with the rule and the events (type, signedDate, transaction) that decided it.

      With --checkpoints DIR --public-key FILE: also checks each checkpoint's signature, that \
      each is a prefix of the next (RFC 6962 consistency proofs), and the log's rows against \
      the published row hashes, naming the first row that differs (a rewrite whose chain was \
      recomputed, which the hash chain alone cannot show).

      Example:
        storeledger audit \\
          --database-url postgres://storeledger_writer@127.0.0.1/app \\
          --bundle-id com.example.app --app-apple-id 1234567890 --json
        storeledger audit --account 9f1c… --at 2026-03-15T00:00:00Z …
        storeledger audit --shard 0/2 --json … > a.json   # on one machine
        storeledger audit --shard 1/2 --json … > b.json   # on another
        storeledger audit --combine a.json b.json
      """)

  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the report as JSON.") var json = false
  @Option(
    help: "Instead of auditing the log: what this account had at --at, and from which events.")
  var account: String?
  @Option(help: "With --account: the time (a date, RFC 3339 or Unix ms; default now).") var at:
    String?
  @Option(help: "Audit only share K of N (0/2 and 1/2 on two machines); combine with --combine.")
  var shard: String?
  @Option(
    parsing: .upToNextOption,
    help: "Combine the --json reports of every shard of one audit into one verdict.")
  var combine: [String] = []
  @Option(
    help: "Also check the log against the signed checkpoints in this directory (with --public-key)."
  )
  var checkpoints: String?
  @Option(help: "The public key (PEM) the checkpoints were signed with.")
  var publicKey: String?

  func validate() throws {
    if (checkpoints == nil) != (publicKey == nil) {
      throw ValidationError("--checkpoints and --public-key go together")
    }
  }

  func run() async throws {
    if let account {
      try await auditAccount(account)
      return
    }
    var report = try combine.isEmpty ? await audit() : Self.combined(combine)
    if let checkpoints, let publicKey {
      let checked = try await auditCheckpoints(checkpoints, publicKey)
      report.problems += checked.problems
      if !json { say(Self.text(checked)) }
    }
    say(json ? try Self.json(report) : Self.text(report))
    if !report.isConsistent { throw ExitCode.failure }
  }

  private func audit() async throws -> AuditReport {
    let share: WorkShard
    do { share = try shard.map(WorkShard.init) ?? .whole } catch {
      throw ValidationError(error.message)
    }
    return try await ledger.withLedger("storeledger.audit") { ledger, _ in
      try await LedgerMaintenance(ledger: ledger).audit(shard: share)
    }
  }

  private func auditCheckpoints(_ path: String, _ keyPath: String) async throws
    -> CheckpointAuditReport
  {
    let key = try CheckpointCommand.publicKey(keyPath)
    let directory = CheckpointDirectory(URL(fileURLWithPath: path, isDirectory: true))
    return try await ledger.withLedger("storeledger.audit") { ledger, _ in
      do {
        return try await LedgerMaintenance(ledger: ledger).auditCheckpoints(
          directory: directory, publicKey: key)
      } catch let error as CheckpointError {
        throw ValidationError("\(error.code): \(error.message)")
      }
    }
  }

  static func text(_ report: CheckpointAuditReport) -> String {
    "\(report.checkpoints) checkpoints verified; \(report.rowsCompared) of the "
      + "\(report.newestTreeSize) rows they cover compared"
      + (report.rowsAfterNewest > 0 ? " (\(report.rowsAfterNewest) rows appended since)" : "")
  }

  /// One verdict from the shards' reports.
  static func combined(_ paths: [String]) throws -> AuditReport {
    let reports = try paths.map { path in
      do {
        return try JSONDecoder().decode(AuditReport.self, from: Data(InputReader.bytes(path)))
      } catch {
        throw ValidationError("\(path) is not an audit report written with --json")
      }
    }
    do { return try AuditReport.combining(reports) } catch { throw ValidationError(error.message) }
  }

  private func auditAccount(_ raw: String) async throws {
    // The view refuses a token that is not a UUID; the output names the canonical one.
    let token = AppAccountToken.canonical(raw) ?? raw
    let time = try at.map { try OptionTime.date($0, "--at") } ?? Date()
    let output = try await ledger.withLedger("storeledger.audit") { ledger, _ in
      AccountAuditOutput(try await ledger.view(for: token), token: token, at: Timestamp(time))
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      say(String(decoding: try encoder.encode(output), as: UTF8.self))
    } else {
      say(output.text)
    }
  }

  static func text(_ report: AuditReport) -> String {
    let share = report.shard.flatMap { $0.count > 1 ? "shard \($0): " : nil } ?? ""
    var lines = [
      share + "\(report.eventsChecked) events: hash chains checked, \(report.signaturesVerified) "
        + "signatures verified; \(report.accountsCompared) account views compared"
        + (report.accountsNotCurrent > 0 ? " (\(report.accountsNotCurrent) not current)" : "")
    ]
    if report.eventsErased > 0 || report.erasuresChecked > 0 {
      lines.append(
        "\(report.eventsErased) events erased by \(report.erasuresChecked) erasures: checked by "
          + "their links and their erasure's record; their signatures are erased, not "
          + "verifiable by design")
    }
    if report.grantEvents > 0 {
      lines.append(
        "\(report.grantEvents) events are operators' grants (ledger.grant.v1): StoreLedger's own "
          + "records, not Apple's evidence, with no signature to verify; they decide entitlements "
          + "by rule E7")
    }
    if report.relayEvents > 0 {
      lines.append(
        "\(report.relayEvents) events record relays (ledger.relay_target.v1, "
          + "ledger.relay_attempted.v1): what StoreLedger sent on to other systems, not Apple's "
          + "evidence")
    }
    for problem in report.problems {
      var line = "\(problem.kind.rawValue) \(problem.subject)"
      if let version = problem.streamVersion { line += " v\(version)" }
      if let field = problem.field {
        line +=
          " \(field): live \(problem.live ?? "absent"), rebuilt \(problem.rebuilt ?? "absent")"
      }
      lines.append(line + " — \(problem.detail)")
    }
    lines.append(report.isConsistent ? "consistent" : "\(report.problems.count) problems")
    return lines.joined(separator: "\n")
  }

  static func json(_ report: AuditReport) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(report), as: UTF8.self)
  }
}
