import Foundation
import StoreLedgerCore

/// The metrics as text tables, amounts in units of their currency.
enum MetricsText {
  static func amount(_ milliunits: Int64) -> String { MetricsFormat.amount(milliunits) }

  static func percent(_ rate: Double?) -> String { MetricsFormat.percent(rate) }

  static func period(_ row: MetricsReport.Row, by: String) -> String {
    switch by {
    case "instant": row.start.date.formatted(.iso8601)
    case "month": MetricsCalendar.monthText(row.start)
    default: MetricsCalendar.dateText(row.start)
    }
  }

  static func group(_ row: MetricsReport.Row) -> String {
    row.group.isEmpty
      ? "-"
      : row.group.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
  }

  static func report(_ report: MetricsReport) -> String {
    var title =
      report.by == "instant"
      ? "Metrics at \(report.from.date.formatted(.iso8601))"
      : "Metrics by \(report.by), \(MetricsCalendar.dateText(report.from)) ≤ t < \(MetricsCalendar.dateText(report.to))"
    if let knownAt = report.knownAt { title += ", as known at \(knownAt.date.formatted(.iso8601))" }
    var lines = [
      title,
      "(amounts in units of each row's currency; proceeds are estimates; definition: \(report.definition.rawValue))",
      "",
    ]
    lines.append(table("Subscriptions", report.rows, by: report.by).render())
    if let reporting = report.reporting {
      lines.append(table("In \(reporting.currency)", reporting.rows, by: report.by).render())
    }
    if let cohorts = report.cohorts {
      var cohortTable = TextTable(
        title: "Cohorts (first period's month)",
        header: [
          "cohort", "month", "env", "currency", "subscriptions", "retained", "retention", "revenue",
        ])
      for row in cohorts {
        cohortTable.rows.append([
          row.cohort, "+\(row.month)", row.environment, row.currency, "\(row.subscriptions)",
          "\(row.retained)", percent(row.retention), amount(row.revenue),
        ])
      }
      lines.append(cohortTable.render())
    }
    return lines.joined(separator: "\n").trimmingCharacters(in: .newlines)
  }

  static func table(_ title: String, _ rows: [MetricsReport.Row], by: String) -> TextTable {
    var table = TextTable(
      title: title,
      header: [
        "period", "group", "env", "cur", "active", "trials", "in grace", "in retry", "MRR", "new",
        "trial→paid",
        "reactivated", "churn v/b/r/o", "refunds", "gross", "net", "proceeds (est.)",
      ])
    for row in rows {
      let figures = row.figures
      table.rows.append([
        period(row, by: by), group(row), row.environment, row.currency,
        "\(figures.activeSubscriptions)", "\(figures.activeTrials)", "\(figures.inGrace)",
        "\(figures.inBillingRetry)", amount(figures.mrr),
        "\(figures.newSubscriptions)",
        "\(figures.trialConversions)/\(figures.trialConversions + figures.trialExpirations)",
        "\(figures.reactivations)",
        "\(figures.churnVoluntary)/\(figures.churnBilling)/\(figures.churnRefund)/\(figures.churnOther)",
        "\(figures.refunds)", amount(figures.grossRevenue), amount(figures.netRevenue),
        amount(figures.estimatedProceeds),
      ])
    }
    return table
  }

  static func diff(_ diff: MetricsDiff) -> String {
    let times = diff.knownAt.map { $0.date.formatted(.iso8601) }
    var lines = ["Known at \(times.first ?? "-") → known at \(times.last ?? "-")", ""]
    var changes = TextTable(
      title: "Figures that moved",
      header: ["period", "group", "env", "cur", "figure", "before", "after"])
    let isAmount = Set([
      "mrr", "arr", "grossRevenue", "refundAmount", "refundReversedAmount", "upgradeCredit",
      "netRevenue", "estimatedProceeds",
    ])
    for change in diff.changes {
      let show = { (value: Int64) in isAmount.contains(change.figure) ? amount(value) : "\(value)" }
      changes.rows.append([
        diff.by == "month"
          ? MetricsCalendar.monthText(change.start) : MetricsCalendar.dateText(change.start),
        change.group.isEmpty
          ? "-"
          : change.group.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
            separator: " "),
        change.environment, change.currency, change.figure, show(change.before), show(change.after),
      ])
    }
    lines.append(changes.render())
    var causes = TextTable(
      title: "Why (events recorded in between)",
      header: ["originalTransactionId", "recorded", "event", "transactionId", "key"])
    for cause in diff.causes {
      for event in cause.events {
        causes.rows.append([
          cause.originalTransactionId, CommandJSON.time(event.recordedAt),
          event.reference.notification ?? event.reference.eventType,
          event.reference.transactionId ?? "-", event.reference.key ?? "-",
        ])
      }
      if cause.events.isEmpty {
        causes.rows.append([
          cause.originalTransactionId, "-", "(the clock: an end passed)", "-", "-",
        ])
      }
    }
    lines.append(causes.render())
    return lines.joined(separator: "\n").trimmingCharacters(in: .newlines)
  }
}
