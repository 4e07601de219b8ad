import AppStoreServerAPI
import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The console's revenue pages: the metrics of a window, and one bucket's drill-down.
extension ConsoleController {
  func revenue(_ form: [String: String]) async throws -> Response {
    let now = Timestamp(Date())
    func time(_ name: String) throws(MetricsError) -> Timestamp? {
      guard let text = form[name] else { return nil }
      guard let time = InstantText.parse(text) else {
        throw MetricsError(.invalidTime, InstantText.problem(name, text))
      }
      return time
    }
    do {
      // By default the twelve months to the end of this one.
      let thisMonth = MetricsCalendar.start(of: .month, holding: now)
      var start = thisMonth
      for _ in 0..<11 {
        start = MetricsCalendar.start(
          of: .month, holding: Timestamp(milliseconds: start.milliseconds - 1))
      }
      let from = try time("from") ?? start
      let to = try time("to") ?? MetricsCalendar.next(.month, after: thisMonth)
      let by = try MetricsGranularity(parsing: form["by"] ?? "month")
      let known = try time("known")
      let query = try MetricsQuery(
        from: from, to: to, granularity: by, knownAt: known, now: now, cohorts: by == .month
      ).defined(by: MetricsDefinition(parsing: form["definition"] ?? "storeledger"))
      let metrics = LedgerMetrics(ledger: ledger)
      let report = try await metrics.report(query)
      var diff: MetricsDiff?
      if let compare = try time("compare") {
        diff = try await metrics.diff(query.knowing(nil), knownAt: compare, known ?? now)
      }
      let document = page.document(title: "Revenue") { html in
        RevenuePage(
          report: report, environment: form["environment"], currency: form["currency"],
          diff: diff, form: form, base: base
        ).render(into: &html)
      }
      return ConsolePage.response(document)
    } catch let error as MetricsError {
      return message("Revenue", "\(error.message) (\(error.code)).", status: .badRequest)
    }
  }

  /// What is behind one bucket of the revenue page: its dated entries and the purchases in
  /// force at its end, each linked to the customer that holds it.
  func revenueBucket(_ form: [String: String]) async throws -> Response {
    guard let start = form["start"].flatMap(Int64.init), let end = form["end"].flatMap(Int64.init),
      end > start, let environment = form["environment"], let currency = form["currency"]
    else {
      return message(
        "Revenue", "Open a bucket from the revenue page's charts or table.", status: .badRequest)
    }
    let (from, to) = (Timestamp(milliseconds: start), Timestamp(milliseconds: end))
    let instant = Timestamp(milliseconds: end - 1)
    let now = Timestamp(Date())
    var entries: [RevenueEntry] = []
    var inForce: [RevenueSegment] = []
    let limit = 1000
    let metrics = LedgerMetrics(ledger: ledger)
    try await RevenueProjector(ledger: ledger, logger: ledger.storage.logger).catchUp()
    try await metrics.forEachRevenuePage(after: .beginning) { page in
      for timeline in page.flatMap(\.timelines) {
        for entry in timeline.entries
        where entry.date >= from && entry.date < to && entry.date <= now
          && entry.attributes.environment == environment && entry.attributes.currency == currency
          && entries.count < limit
        {
          entries.append(entry)
        }
        for segment in timeline.segments
        where segment.holds(instant) && segment.attributes.environment == environment
          && segment.attributes.currency == currency && inForce.count < limit
        {
          inForce.append(segment)
        }
      }
    }
    entries.sort { ($0.date, $0.transactionId) < ($1.date, $1.transactionId) }
    let title =
      "Revenue, \(MetricsCalendar.dateText(from)) to \(MetricsCalendar.dateText(to)) "
      + "(\(environment), \(currency))"
    let document = page.document(title: title) { html in
      html.element("p") { html in
        html.element("a", ["href": "\(base)/revenue"], text: "Back to revenue")
      }
      html.element("h2", text: "What happened in it")
      html.table(
        caption: entries.count == limit ? "The first \(limit)" : nil,
        headers: [
          "When", "What", "Amount", "Proceeds (est.)", "Product", "Transaction", "Purchase",
        ],
        rows: entries, id: "bucket-entries"
      ) { html, entry in
        html.cell(entry.date.date.formatted(.iso8601))
        html.cell(entry.kind.rawValue.replacingOccurrences(of: "_", with: " "))
        html.cell(entry.amount == 0 ? "-" : MetricsFormat.amount(entry.amount))
        html.cell(entry.proceeds == 0 ? "-" : MetricsFormat.amount(entry.proceeds))
        html.cell(entry.attributes.productId ?? "-")
        html.element("td") { html in
          html.element(
            "a", ["href": "\(base)/search?q=\(entry.transactionId)"], text: entry.transactionId)
        }
        html.cell(entry.originalTransactionId)
      }
      html.element("h2", text: "In force at its end")
      html.table(
        caption: inForce.count == limit ? "The first \(limit)" : nil,
        headers: ["Purchase", "Product", "Trial", "Monthly value", "From", "Until"],
        rows: inForce, id: "bucket-in-force"
      ) { html, segment in
        html.element("td") { html in
          html.element(
            "a", ["href": "\(base)/search?q=\(segment.originalTransactionId)"],
            text: segment.originalTransactionId)
        }
        html.cell(segment.attributes.productId ?? "-")
        html.cell(segment.isTrial ? "trial" : "paid")
        html.cell(MetricsFormat.amount(segment.monthlyValue))
        html.cell(MetricsCalendar.dateText(segment.start))
        html.cell(MetricsCalendar.dateText(segment.end))
      }
    }
    return ConsolePage.response(document)
  }
}
