import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore

/// The demo's revenue stage: StoreLedger's metrics of every simulated month, month by
/// month and currency by currency, against the simulated App Store's own books (what it
/// charged and refunded, entered as it stored each transaction).
struct DemoRevenue {
  let store: SimulatedAppStore
  let ledger: Ledger
  let from: Timestamp
  let to: Timestamp

  /// What the demo prints and `--json` holds under `"metrics"`.
  struct Summary: Codable, Sendable {
    var months = 0
    var currencies: [String] = []
    /// Figures compared with the store's books (months × currencies × figures).
    var compared = 0
    /// Every figure that differs, one line each: empty when StoreLedger agrees.
    var differences: [String] = []
    /// Over the whole simulation, by currency (milliunits).
    var grossRevenue: [String: Int64] = [:]
    var refundAmount: [String: Int64] = [:]
    var netRevenue: [String: Int64] = [:]
    var estimatedProceeds: [String: Int64] = [:]
    /// At the last month's end, by currency.
    var activeSubscriptions: [String: Int64] = [:]
    var mrr: [String: Int64] = [:]
    var trialStarts: Int64 = 0
    var trialConversions: Int64 = 0
    var churned: Int64 = 0
  }

  func run() async throws -> Summary {
    let query = try MetricsQuery(
      from: from, to: to, granularity: .month, now: Timestamp(Date()))
    let report = try await LedgerMetrics(ledger: ledger).report(query)
    var summary = Summary()
    var currencies = Set<String>()
    var months = Set<String>()
    for row in report.rows {
      let figures = row.figures
      currencies.insert(row.currency)
      months.insert(MetricsCalendar.monthText(row.start))
      summary.grossRevenue[row.currency, default: 0] += figures.grossRevenue
      summary.refundAmount[row.currency, default: 0] += figures.refundAmount
      summary.netRevenue[row.currency, default: 0] += figures.netRevenue
      summary.estimatedProceeds[row.currency, default: 0] += figures.estimatedProceeds
      summary.trialStarts += figures.trialStarts
      summary.trialConversions += figures.trialConversions
      summary.churned += figures.churned
      if row.end == report.to {
        summary.activeSubscriptions[row.currency, default: 0] += figures.activeSubscriptions
        summary.mrr[row.currency, default: 0] += figures.mrr
      }
    }
    let books = store.books
    (summary.compared, summary.differences) = books.compare(report)
    summary.months = months.union(books.months.keys).count
    summary.currencies = currencies.sorted()
    return summary
  }
}
