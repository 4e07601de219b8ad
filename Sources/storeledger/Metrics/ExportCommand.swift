import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct ExportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Revenue rows for tools that do not speak SQL: CSV or JSON lines, resumable.",
    discussion: """
      Writes the revenue analytics (storeledger_analytics, projections/revenue.md) to \
      standard output, brought up to date first: the dated entries (charges, refunds, \
      upgrade credits, trials, churn…) or the periods subscriptions were in force. Each row \
      carries `position`: the feed position of the newest event its chain's rows were made \
      from. Chains come in position order, so an export can stop anywhere and go on with \
      --after-position (the last position, also printed at the end on standard error); \
      a later export --after-position gives the chains that changed since.

      Amounts are integers in milliunits of `currency`; proceeds are estimates (default \
      commission, no tax).

      Examples:
        storeledger export --format csv > entries.csv
        storeledger export --what periods --format jsonl --from 2026-01-01
        storeledger export --after-position 81234/3 --format jsonl >> entries.jsonl
      """)

  enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl }
  enum Table: String, ExpressibleByArgument, CaseIterable { case entries, periods }

  @Option(help: "csv or jsonl.") var format: Format = .csv
  @Option(help: "entries (dated facts) or periods (time in force).") var what: Table = .entries
  @Option(help: "Only rows from this time (entries dated, periods ending, after it).")
  var from: String?
  @Option(help: "Only rows before this time (exclusive).") var to: String?
  @Option(help: "Only chains whose rows changed after this position (from a previous export).")
  var afterPosition: String?
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    if let afterPosition, Self.position(afterPosition) == nil {
      throw ValidationError(
        "--after-position \(afterPosition): give a position as an export printed it (81234/3)")
    }
    if let from, let to, let start = InstantText.parse(from),
      let end = InstantText.parse(to), end <= start
    {
      throw ValidationError("range_reversed: --to must be after --from")
    }
  }

  static func position(_ text: String) -> FeedPosition? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let tx = UInt64(parts[0]), let seq = Int64(parts[1]), seq >= 0
    else { return nil }
    return FeedPosition(transactionId: tx, sequence: seq)
  }

  func run() async throws {
    let start = try from.map { try OptionTime.instant($0, "--from") }
    let end = try to.map { try OptionTime.instant($0, "--to") }
    let after = afterPosition.flatMap(Self.position) ?? .beginning
    let (format, what) = (format, what)
    let (chains, last) = try await ledger.withLedger("storeledger.export") { ledger, logger in
      try await RevenueProjector(ledger: ledger, logger: logger).catchUp()
      let bar = ProgressBar("exporting ")
      defer { bar.finish() }
      var writer = ExportWriter(format: format, table: what, from: start, to: end)
      if format == .csv { StandardStreams.out(writer.header) }
      var position = after
      var chains = 0
      try await LedgerMetrics(ledger: ledger).forEachRevenuePage(after: after) { page in
        var text = ""
        for chain in page {
          writer.write(chain, into: &text)
          position = chain.position
        }
        chains += page.count
        StandardStreams.out(text)
        bar.update(chains, of: nil, "chains, at \(position)")
      }
      return (chains, position)
    }
    StandardStreams.error(
      "\(chains) chains exported; go on with --after-position \(last)\n")
  }
}
