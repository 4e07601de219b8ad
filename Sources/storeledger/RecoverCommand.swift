import AppStoreServerAPI
import AppStoreVerification
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore

struct RecoverCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recover",
    abstract: "Store the notifications that never reached the webhook, from Notification History.",
    discussion: """
      Pages Get Notification History from --since to --until (default now), only the \
      notifications Apple could not deliver unless --all, and ingests each one as the webhook \
      would (verified; marked "recovery"). What is already stored is counted, never stored \
      twice, so it can run again at any time. Apple keeps 180 days (Production), 30 (Sandbox):
      a --since beyond that starts at the oldest day Apple keeps, and the report says so.

      Example:
        storeledger recover --since 2026-11-01T00:00:00Z \\
          --database-url postgres://… \\
          --bundle-id com.example.app --app-apple-id 1234567890 \\
          --key-id 2X9R4HXF34 --issuer-id 57246542-… --p8 AuthKey_2X9R4HXF34.p8
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Option(help: "Start of the window (a date, RFC 3339 or Unix ms).") var since: String
  @Option(help: "End of the window (a date, RFC 3339 or Unix ms; default now).") var until: String?
  @Flag(help: "Every notification of the window, not only the failed ones.") var all = false
  @Flag(help: "Print the report as JSON.") var json = false

  func run() async throws {
    let start = try OptionTime.date(since, "--since")
    let end = try until.map { try OptionTime.date($0, "--until") } ?? Date()
    let (api, quiet, onlyFailures) = (api, json, !all)
    let bar = ProgressBar("recovering", enabled: !quiet)
    let report = try await ledger.withLedger("storeledger.recover") { ledger, logger in
      let (client, environment) = try api.client(for: ledger, options: self.ledger, logger: logger)
      let recovery = NotificationRecovery(
        ledger: ledger, client: client, environment: environment, logger: logger)
      return try await recovery.recover(from: start, to: end, onlyFailures: onlyFailures) {
        progress in
        bar.update(
          progress.found, of: nil, "notifications found, \(progress.appended.grouped) appended")
      }
    }
    bar.finish()
    say(json ? try Self.json(report) : Self.text(report))
  }

  static func text(_ report: NotificationRecovery.Report) -> String {
    var lines: [String] = []
    if let asked = report.clampedFrom, let searched = report.searchedFrom {
      lines.append(
        "--since \(asked) lies beyond Apple's notification history (180 days in Production, "
          + "30 in Sandbox): searched from \(searched)")
    }
    lines += [
      "found \(report.found) notifications: \(report.appended) appended, "
        + "\(report.alreadyStored) already stored, \(report.rejected.values.reduce(0, +)) rejected"
    ]
    lines += report.appendedByType.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" }
    lines += report.rejected.sorted { $0.key < $1.key }.map { "  rejected \($0.key): \($0.value)" }
    return lines.joined(separator: "\n")
  }

  static func json(_ report: NotificationRecovery.Report) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(report), as: UTF8.self)
  }
}
