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

  /// The figures compared, by name, with the books' value of each.
  static var compared:
    [(String, WritableKeyPath<MetricsFigures, Int64>, KeyPath<RevenueBooks.Month, Int64>)]
  {
    [
      ("transactions", \.transactions, \.transactions),
      ("grossRevenue", \.grossRevenue, \.gross),
      ("refunds", \.refunds, \.refunds),
      ("refundAmount", \.refundAmount, \.refunded),
      ("refundsReversed", \.refundsReversed, \.reversals),
      ("refundReversedAmount", \.refundReversedAmount, \.reversed),
      ("newSubscriptions", \.newSubscriptions, \.newSubscriptions),
    ]
  }

  func run() async throws -> Summary {
    let query = try MetricsQuery(
      from: from, to: to, granularity: .month, now: Timestamp(Date()))
    let report = try await LedgerMetrics(ledger: ledger).report(query)
    // Environments add up here: the simulated store sells in one.
    var engine: [String: [String: MetricsFigures]] = [:]
    var summary = Summary()
    for row in report.rows {
      let month = MetricsCalendar.monthText(row.start)
      engine[month, default: [:]][row.currency, default: MetricsFigures()].addCompared(row.figures)
      let figures = row.figures
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
    let books = store.books.months
    let months = Set(engine.keys).union(books.keys).sorted()
    var currencies = Set<String>()
    for month in months {
      let ours = engine[month] ?? [:]
      let theirs = books[month] ?? [:]
      for currency in Set(ours.keys).union(theirs.keys).sorted() {
        currencies.insert(currency)
        let figures = ours[currency] ?? MetricsFigures()
        let booked = theirs[currency] ?? RevenueBooks.Month()
        for (name, mine, store) in Self.compared {
          summary.compared += 1
          if figures[keyPath: mine] != booked[keyPath: store] {
            summary.differences.append(
              "\(month) \(currency) \(name): StoreLedger \(figures[keyPath: mine]), "
                + "the store's books \(booked[keyPath: store])")
          }
        }
      }
    }
    summary.months = months.count
    summary.currencies = currencies.sorted()
    return summary
  }
}

extension MetricsFigures {
  /// Adds another row's counts and amounts (the demo sums environments).
  mutating func addCompared(_ other: MetricsFigures) {
    for (_, path, _) in DemoRevenue.compared { self[keyPath: path] += other[keyPath: path] }
  }
}
