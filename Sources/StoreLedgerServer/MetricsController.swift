import Foundation
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Revenue and subscription metrics (`GET /v1/metrics`, `GET /v1/metrics/diff`): the
/// library's ``LedgerMetrics`` over HTTP, apart from Prometheus' `/metrics`. The question is
/// read from the query; a rate table comes as `currency` and `rates`
/// (`EUR=1.08,JPY=0.0067@2026-07-01`), never fetched from anywhere.
struct MetricsController: Sendable {
  let metrics: LedgerMetrics

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/metrics") { request, _ in
      let parameters = request.uri.queryParameters
      let query = try Self.query(
        parameters, knownAt: Self.time(parameters.get("knownAt"), "knownAt"))
      return try JSONBody.response(try await metrics.report(query))
    }
    group.get("/v1/metrics/diff") { request, _ in
      let parameters = request.uri.queryParameters
      guard let before = try Self.time(parameters.get("before"), "before") else {
        throw Self.unanswerable("give `before`: the first time to compare (knownAt)")
      }
      let after = try Self.time(parameters.get("after"), "after") ?? Timestamp(Date())
      let query = try Self.query(parameters, knownAt: nil)
      return try JSONBody.response(
        try await metrics.diff(query, knownAt: before, after))
    }
  }

  static func time(_ text: String?, _ name: String) throws -> Timestamp? {
    guard let text else { return nil }
    guard let time = InstantText.parse(text) else {
      throw Self.unanswerable(InstantText.problem("`\(name)`", text))
    }
    return time
  }

  static func query(
    _ parameters: some Sequence<(key: Substring, value: Substring)>, knownAt: Timestamp?
  )
    throws -> MetricsQuery
  {
    var values: [String: String] = [:]
    for (key, value) in parameters { values[String(key)] = String(value) }
    let grouping = try MetricsDimension.parse(values["group"] ?? "")
    var commission = CommissionPolicy(smallBusiness: values["smallBusiness"] == "true")
    if let tax = values["tax"], !tax.isEmpty {
      for entry in tax.split(separator: ",") {
        let parts = entry.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 3, let percent = Double(parts[1]),
          percent >= 0, percent <= 1000
        else {
          throw Self.unanswerable("`tax` is STOREFRONT=PERCENT,…, like DEU=19,FRA=20")
        }
        commission.taxRates[parts[0].uppercased()] = Int64((percent * 100).rounded())
      }
    }
    let rates = try Self.rates(values["rates"], currency: values["currency"])
    let definition = try MetricsDefinition(parsing: values["definition"] ?? "storeledger")
    let now = Timestamp(Date())
    if let at = try time(values["at"], "at") {
      guard values["from"] == nil, values["to"] == nil else {
        throw Self.unanswerable("give `at`, or `from` and `to`, not both")
      }
      return try MetricsQuery(
        at: at, grouping: grouping, knownAt: knownAt, now: now, commission: commission,
        rates: rates
      ).defined(by: definition)
    }
    guard let from = try time(values["from"], "from"), let to = try time(values["to"], "to")
    else {
      throw Self.unanswerable("give `from` and `to` (a range), or `at` (an instant)")
    }
    return try MetricsQuery(
      from: from, to: to, granularity: try MetricsGranularity(parsing: values["by"] ?? "day"),
      grouping: grouping, knownAt: knownAt, now: now, commission: commission, rates: rates,
      cohorts: values["cohorts"] == "true"
    ).defined(by: definition)
  }

  /// `EUR=1.08,JPY=0.0067@2026-07-01` in `currency`.
  static func rates(_ text: String?, currency: String?) throws -> CurrencyRates? {
    guard let text, !text.isEmpty else {
      guard currency == nil else {
        throw Self.unanswerable(
          "`currency` names the reporting currency of `rates`; give both")
      }
      return nil
    }
    guard let currency else {
      throw Self.unanswerable("`rates` needs `currency`: the reporting currency (ISO 4217)")
    }
    let lines = text.split(separator: ",").map { entry -> String in
      let rate = entry.split(separator: "@", maxSplits: 1)
      let pair = rate[0].split(separator: "=", maxSplits: 1)
      let from = rate.count == 2 ? ",\(rate[1])" : ""
      return pair.count == 2 ? "\(pair[0]),\(pair[1])\(from)" : String(entry)
    }
    return try CurrencyRates.read(lines.joined(separator: "\n"), reportingCurrency: currency)
  }

  /// A question whose parameters fit the document but do not go together: 422.
  static func unanswerable(_ message: String) -> APIError {
    APIError(.unprocessableContent, "invalid_request", message)
  }
}
