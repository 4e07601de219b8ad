import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct MetricsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "metrics",
    abstract: "What we earned, and why: revenue and subscription metrics from the signed log.",
    discussion: """
      Actives, trials, MRR and ARR at each bucket's end; new subscriptions, trial starts and \
      conversions, reactivations, churn (voluntary, billing, refund), refunds, gross and net \
      revenue and estimated proceeds over each bucket; per currency and environment, grouped \
      as asked. Rules: projections/revenue.md. Amounts are the App Store's signed prices; \
      proceeds are estimates (App Store Connect's reports are the accounting truth).

      Examples:
        storeledger metrics --from 2026-01-01 --to 2027-01-01 --by month \\
          --group product
        storeledger metrics --at 2026-06-30T23:59:59Z --known-at 2026-07-01 --json
        storeledger metrics --from 2026-01-01 --to 2026-04-01 --by month \\
          --rates rates.csv --currency USD
        storeledger metrics diff --from 2026-02-01 --to 2026-03-01 --by month \\
          --known-at 2026-03-01 --known-at 2026-03-10
      """,
    subcommands: [MetricsReportCommand.self, MetricsDiffCommand.self],
    defaultSubcommand: MetricsReportCommand.self)
}

struct MetricsReportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report", abstract: "The metrics of a range or an instant (the default).")

  @OptionGroup var question: MetricsOptions
  @Option(help: "Only what StoreLedger had recorded by this time (default: everything).")
  var knownAt: String?
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print JSON (the HTTP API's GET /v1/metrics answer).") var json = false

  func run() async throws {
    let query = try question.query(
      knownAt: try knownAt.map { try OptionTime.instant($0, "--known-at") },
      now: Timestamp(Date()))
    let report = try await ledger.withLedger("storeledger.metrics") { ledger, _ in
      do {
        return try await LedgerMetrics(ledger: ledger).report(query)
      } catch let error as MetricsError {
        throw CommandFailure("\(error.code): \(error.message)")
      }
    }
    say(json ? try CommandJSON.string(report) : MetricsText.report(report))
  }
}

struct MetricsDiffCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "How the metrics known at one time differ from those known at another, and why.",
    discussion: """
      Lists every figure that moved and, for each purchase chain that moved one, the events \
      recorded in between (late notifications, replays, refunds).
      """)

  @OptionGroup var question: MetricsOptions
  @Option(help: "The two times to compare (give it twice; the second defaults to now).")
  var knownAt: [String] = []
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    guard (1...2).contains(knownAt.count) else {
      throw ValidationError("give --known-at once or twice (the second defaults to now)")
    }
  }

  func run() async throws {
    let now = Timestamp(Date())
    let times = try knownAt.map { try OptionTime.instant($0, "--known-at") }
    let before = times[0]
    let after = times.count == 2 ? times[1] : now
    let query = try question.query(knownAt: nil, now: now)
    let diff = try await ledger.withLedger("storeledger.metrics") { ledger, _ in
      do {
        return try await LedgerMetrics(ledger: ledger).diff(query, knownAt: before, after)
      } catch let error as MetricsError {
        throw CommandFailure("\(error.code): \(error.message)")
      }
    }
    say(json ? try CommandJSON.string(diff) : MetricsText.diff(diff))
  }
}
