import Foundation
import StoreLedger
import StoreLedgerCore

/// The console's revenue page: MRR, actives, trials and churn over time as charts (with the
/// numbers in a table beside), the cohort table, and the two-clocks comparison, for one
/// environment and currency at a time.
struct RevenuePage {
  let report: MetricsReport
  let environment: String?
  let currency: String?
  let diff: MetricsDiff?
  /// The form's values as given.
  let form: [String: String]
  let base: String

  /// Environment × currency pairs the range holds, busiest first.
  var pairs: [(environment: String, currency: String)] {
    var gross: [String: Int64] = [:]
    for row in report.rows {
      gross["\(row.environment)\u{1}\(row.currency)", default: 0] +=
        row.figures.grossRevenue + row.figures.activeSubscriptions
    }
    return gross.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
      let parts = $0.key.split(separator: "\u{1}", omittingEmptySubsequences: false)
      return (String(parts[0]), String(parts[1]))
    }
  }

  var selected: (environment: String, currency: String)? {
    let all = pairs
    return all.first {
      (environment == nil || $0.environment == environment)
        && (currency == nil || $0.currency == currency)
    } ?? all.first
  }

  /// One row per bucket of the selected pair (zeros where the answer has none).
  var buckets: [(start: Timestamp, end: Timestamp, figures: MetricsFigures)] {
    guard let selected else { return [] }
    var byStart: [Timestamp: (Timestamp, MetricsFigures)] = [:]
    for row in report.rows
    where row.environment == selected.environment && row.currency == selected.currency {
      byStart[row.start] = (row.end, row.figures)
    }
    let query = try? MetricsQuery(
      from: report.from, to: report.to,
      granularity: MetricsGranularity(rawValue: report.by) ?? .day, now: report.horizon)
    return (query?.buckets ?? []).map { bucket in
      (bucket.start, bucket.end, byStart[bucket.start]?.1 ?? MetricsFigures())
    }
  }

  func label(_ start: Timestamp) -> String {
    report.by == "month" ? MetricsCalendar.monthText(start) : MetricsCalendar.dateText(start)
  }

  func render(into html: inout HTML) {
    html.element(
      "p",
      text: "From the signed log: what the App Store's signed prices say, per environment and "
        + "currency. Proceeds are estimates (30 % commission, 15 % after a year of paid "
        + "service; no tax): App Store Connect's reports are the accounting truth.")
    questionForm(into: &html)
    guard let selected else {
      html.element("p", ["id": "revenue-none"], text: "Nothing was sold or in force in this range.")
      return
    }
    if pairs.count > 1 {
      html.element("nav", ["aria-label": "Environment and currency"]) { html in
        html.element("ul", ["class": "legend"]) { html in
          for pair in pairs {
            html.element("li") { html in
              if pair == selected {
                html.element("strong", text: "\(pair.environment) \(pair.currency)")
              } else {
                html.element(
                  "a", ["href": link(environment: pair.environment, currency: pair.currency)],
                  text: "\(pair.environment) \(pair.currency)")
              }
            }
          }
        }
      }
    }
    let rows = buckets
    cards(rows, selected, into: &html)
    let labels = rows.map { label($0.start) }
    let amount = { (value: Double) in MetricsFormat.amount(Int64(value.rounded())) }
    let count = { (value: Double) in String(Int64(value.rounded())) }
    let drill = { (index: Int) in bucketLink(rows[index].start, rows[index].end, selected) }
    RevenueChart(
      id: "chart-mrr", title: "MRR (\(selected.currency)) at each \(report.by)'s end",
      kind: .lines, labels: labels,
      series: [
        .init(
          name: "MRR", values: rows.map { Double($0.figures.mrr) }, colour: "#1d4ed8",
          dash: "none", pattern: "solid")
      ], format: amount, link: drill
    ).render(into: &html)
    RevenueChart(
      id: "chart-actives", title: "Active subscriptions and trials", kind: .lines,
      labels: labels,
      series: [
        .init(
          name: "Active subscriptions", values: rows.map { Double($0.figures.activeSubscriptions) },
          colour: "#15803d", dash: "none", pattern: "solid"),
        .init(
          name: "Active trials", values: rows.map { Double($0.figures.activeTrials) },
          colour: "#7c3aed", dash: "6 3", pattern: "solid"),
      ], format: count, link: drill
    ).render(into: &html)
    RevenueChart(
      id: "chart-churn", title: "Churn by reason", kind: .stackedBars, labels: labels,
      series: [
        .init(
          name: "Voluntary", values: rows.map { Double($0.figures.churnVoluntary) },
          colour: "#b45309", dash: "none", pattern: "diagonal"),
        .init(
          name: "Billing", values: rows.map { Double($0.figures.churnBilling) },
          colour: "#b91c1c", dash: "none", pattern: "dots"),
        .init(
          name: "Refund", values: rows.map { Double($0.figures.churnRefund) },
          colour: "#6b21a8", dash: "none", pattern: "cross"),
        .init(
          name: "Other", values: rows.map { Double($0.figures.churnOther) }, colour: "#4b5563",
          dash: "none", pattern: "solid"),
      ], format: count, link: drill
    ).render(into: &html)
    table(rows, selected, into: &html)
    cohorts(selected, into: &html)
    comparison(into: &html)
  }

  private func questionForm(into html: inout HTML) {
    html.element("form", ["method": "get", "action": "\(base)/revenue", "class": "question"]) {
      html in
      for (name, label, placeholder) in [
        ("from", "From", "2026-01-01"), ("to", "To (exclusive)", "2027-01-01"),
        ("known", "As known at", "now"), ("compare", "Compare with as known at", "2026-06-01"),
      ] {
        html.element("label", ["for": "revenue-\(name)"], text: "\(label) ")
        html.void(
          "input",
          [
            "id": "revenue-\(name)", "name": name, "value": form[name] ?? "",
            "placeholder": placeholder, "size": "12",
          ])
      }
      html.element("label", ["for": "revenue-by"], text: "By ")
      html.element("select", ["id": "revenue-by", "name": "by"]) { html in
        for option in ["day", "week", "month"] {
          html.element(
            "option",
            ["value": option, "selected": (form["by"] ?? "month") == option ? "" : nil],
            text: option)
        }
      }
      html.element("label", ["for": "revenue-definition"], text: "Definition ")
      html.element("select", ["id": "revenue-definition", "name": "definition"]) { html in
        for option in MetricsDefinition.allCases.map(\.rawValue) {
          html.element(
            "option",
            [
              "value": option,
              "selected": (form["definition"] ?? report.definition.rawValue) == option ? "" : nil,
            ],
            text: option)
        }
      }
      if let environment = form["environment"] {
        html.void("input", ["type": "hidden", "name": "environment", "value": environment])
      }
      if let currency = form["currency"] {
        html.void("input", ["type": "hidden", "name": "currency", "value": currency])
      }
      html.element("button", ["type": "submit"], text: "Show")
    }
  }

  private func cards(
    _ rows: [(start: Timestamp, end: Timestamp, figures: MetricsFigures)],
    _ selected: (environment: String, currency: String), into html: inout HTML
  ) {
    let last = rows.last?.figures ?? MetricsFigures()
    var total = MetricsFigures()
    for row in rows {
      total.grossRevenue += row.figures.grossRevenue
      total.netRevenue += row.figures.netRevenue
      total.estimatedProceeds += row.figures.estimatedProceeds
      total.churned += row.figures.churned
      total.trialStarts += row.figures.trialStarts
      total.trialConversions += row.figures.trialConversions
      total.refunds += row.figures.refunds
    }
    html.element("div", ["class": "cards", "id": "revenue-cards"]) { html in
      for (label, value) in [
        ("MRR at the end (\(selected.currency))", MetricsFormat.amount(last.mrr)),
        ("Active subscriptions at the end", "\(last.activeSubscriptions)"),
        ("Active trials at the end", "\(last.activeTrials)"),
        ("Of them in billing grace", "\(last.inGrace)"),
        ("In billing retry at the end", "\(last.inBillingRetry)"),
        ("Net revenue (\(selected.currency))", MetricsFormat.amount(total.netRevenue)),
        (
          "Estimated proceeds (\(selected.currency))", MetricsFormat.amount(total.estimatedProceeds)
        ),
        // Conversions belong to the trials that ended in the range, not to those that began
        // in it: a trial begun before the range may convert inside it.
        ("Trials started", "\(total.trialStarts)"),
        (
          "Trials ended in the range: converted",
          "\(total.trialConversions) of \(total.trialConversions + total.trialExpirations)"
        ),
        ("Churned", "\(total.churned)"), ("Refunds", "\(total.refunds)"),
      ] {
        html.element("div", ["class": "card"]) { html in
          html.element("strong", text: value)
          html.text(label)
        }
      }
    }
  }

  private func table(
    _ rows: [(start: Timestamp, end: Timestamp, figures: MetricsFigures)],
    _ selected: (environment: String, currency: String), into html: inout HTML
  ) {
    html.element("h2", text: "The figures")
    html.table(
      caption:
        "\(selected.environment), \(selected.currency): stocks at each \(report.by)'s end, flows over it",
      headers: [
        report.by.capitalized, "Active", "Trials", "In grace", "In retry", "MRR", "New",
        "Trial → paid", "Reactivated",
        "Churn (vol./billing/refund/other)", "Refunds", "Gross", "Net", "Proceeds (est.)",
      ], rows: rows, id: "revenue-table"
    ) { html, row in
      let f = row.figures
      html.element("td") { html in
        html.element(
          "a", ["href": bucketLink(row.start, row.end, selected)], text: label(row.start))
      }
      html.cell("\(f.activeSubscriptions)")
      html.cell("\(f.activeTrials)")
      html.cell("\(f.inGrace)")
      html.cell("\(f.inBillingRetry)")
      html.cell(MetricsFormat.amount(f.mrr))
      html.cell("\(f.newSubscriptions)")
      html.cell("\(f.trialConversions) of \(f.trialConversions + f.trialExpirations)")
      html.cell("\(f.reactivations)")
      html.cell("\(f.churnVoluntary)/\(f.churnBilling)/\(f.churnRefund)/\(f.churnOther)")
      html.cell("\(f.refunds) (\(MetricsFormat.amount(f.refundAmount)))")
      html.cell(MetricsFormat.amount(f.grossRevenue))
      html.cell(MetricsFormat.amount(f.netRevenue))
      html.cell(MetricsFormat.amount(f.estimatedProceeds))
    }
  }

  private func cohorts(_ selected: (environment: String, currency: String), into html: inout HTML) {
    let rows = (report.cohorts ?? []).filter {
      $0.environment == selected.environment && $0.currency == selected.currency
    }
    guard !rows.isEmpty else { return }
    let months = (rows.map(\.month).max() ?? 0) + 1
    let cohorts = Array(Set(rows.map(\.cohort))).sorted()
    html.element("h2", text: "Cohorts")
    html.table(
      caption:
        "Subscriptions by month of their first period: share with a paid period in force at each month's end",
      headers: ["Cohort", "Subscriptions"] + (0..<months).map { "+\($0)" }, rows: cohorts,
      id: "revenue-cohorts"
    ) { html, cohort in
      let cells = rows.filter { $0.cohort == cohort }
      html.cell(cohort)
      html.cell("\(cells.first?.subscriptions ?? 0)")
      for month in 0..<months {
        guard let cell = cells.first(where: { $0.month == month }) else {
          html.cell("")
          continue
        }
        html.cell(
          "\(MetricsFormat.percent(cell.retention)) · \(MetricsFormat.amount(cell.revenue))")
      }
    }
  }

  private func comparison(into html: inout HTML) {
    guard let diff else { return }
    let times = diff.knownAt.map { $0.date.formatted(.iso8601) }
    html.element("h2", text: "As known at \(times.first ?? "") and at \(times.last ?? "")")
    guard !diff.changes.isEmpty else {
      html.element("p", ["id": "revenue-diff-none"], text: "Nothing moved between the two.")
      return
    }
    html.table(
      caption: "Figures that moved",
      headers: ["Period", "Env", "Currency", "Figure", "Before", "After"],
      rows: diff.changes, id: "revenue-diff"
    ) { html, change in
      html.cell(label(change.start))
      html.cell(change.environment)
      html.cell(change.currency)
      html.cell(change.figure)
      html.cell("\(change.before)")
      html.cell("\(change.after)")
    }
    html.table(
      caption: "Why: events recorded in between",
      headers: ["Purchase", "Recorded", "Event", "Transaction"],
      rows: diff.causes.flatMap { cause in
        cause.events.map { (cause.originalTransactionId, $0) }
      }, id: "revenue-causes"
    ) { html, item in
      html.element("td") { html in
        html.element(
          "a", ["href": "\(base)/search?q=\(item.0)"], text: item.0)
      }
      html.cell(item.1.recordedAt.map { $0.date.formatted(.iso8601) } ?? "-")
      html.cell(item.1.reference.notification ?? item.1.reference.eventType)
      html.cell(item.1.reference.transactionId ?? "-")
    }
  }

  private func link(environment: String, currency: String) -> String {
    var items = form.filter { $0.key != "environment" && $0.key != "currency" }
    items["environment"] = environment
    items["currency"] = currency
    return "\(base)/revenue?" + Self.query(items)
  }

  func bucketLink(
    _ start: Timestamp, _ end: Timestamp, _ selected: (environment: String, currency: String)
  ) -> String {
    "\(base)/revenue/bucket?"
      + Self.query([
        "start": "\(start.milliseconds)", "end": "\(end.milliseconds)",
        "environment": selected.environment, "currency": selected.currency,
      ])
  }

  static func query(_ items: [String: String]) -> String {
    items.sorted { $0.key < $1.key }.map { key, value in
      "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
    }.joined(separator: "&")
  }
}
