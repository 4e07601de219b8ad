import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerPostgres

struct AuditCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "audit",
    abstract: "Prove the log and the read models intact; exit 0 only when all is consistent.",
    discussion: """
      Checks every stream's hash chain and version sequence, verifies every stored JWS again
      offline at its signedDate against the trusted roots (--root-certs, default Apple Root
      CA - G3) and compares it with the stored payload, and compares every current account
      view with the projection rebuilt from the log. Prints each difference (kind, stream or
      account, version or field, live, rebuilt) and exits 1 when there is any. Reads the log
      page by page; a reader role is enough.

      Example:
        storeledger audit --database-url postgres://storeledger_reader@127.0.0.1/app \\
          --bundle-id com.example.app --app-apple-id 1234567890 --json
      """)

  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the report as JSON.") var json = false

  func run() async throws {
    let report = try await ledger.withLedger("storeledger.audit") { ledger, _ in
      try await ledger.audit()
    }
    say(json ? try Self.json(report) : Self.text(report))
    if !report.isConsistent { throw ExitCode.failure }
  }

  static func text(_ report: AuditReport) -> String {
    var lines = [
      "\(report.eventsChecked) events: hash chains checked, \(report.signaturesVerified) "
        + "signatures verified; \(report.accountsCompared) account views compared"
        + (report.accountsNotCurrent > 0 ? " (\(report.accountsNotCurrent) not current)" : "")
    ]
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
