import ArgumentParser
import Foundation
import StoreLedgerCore

/// The question `metrics` and `metrics diff` ask: a range (or an instant), buckets, grouping,
/// what was known, the commission and an optional rate table.
struct MetricsOptions: ParsableArguments {
  @Option(help: "First instant of the range, inclusive (YYYY-MM-DD, a date, RFC 3339 or Unix ms).")
  var from: String?
  @Option(help: "End of the range, exclusive (--from 2026-01-01 --to 2026-02-01 is January).")
  var to: String?
  @Option(help: "One instant instead of a range: the world as of that time.") var at: String?
  @Option(help: "Bucket size: day, week or month.") var by: String = "day"
  @Option(
    help:
      "Group by any of product, group, storefront, currency, environment, offer (comma-separated)."
  )
  var group: String = ""
  @Option(help: "A rate table (JSON, or CSV currency,rate[,from]) for one reporting currency.")
  var rates: String?
  @Option(help: "The reporting currency of a CSV rate table (ISO 4217).") var currency: String?
  @Flag(help: "Enrolled in the App Store Small Business Program (15 % commission).")
  var smallBusiness = false
  @Option(
    name: .customLong("tax"),
    help: "Tax included in prices of a storefront, in percent (DEU=19); repeatable.")
  var taxes: [String] = []
  @Flag(help: "Add the cohort table (subscriptions by month of their first period).")
  var cohorts = false
  @Option(
    help:
      "Whose rules decide churn: storeledger (billing retry is not churn until it runs out) or revenuecat (churn when access ends)."
  )
  var definition: String = "storeledger"

  /// The query, known at `knownAt`, asked now. Bad input is a usage error naming the fix.
  func query(knownAt: Timestamp?, now: Timestamp) throws -> MetricsQuery {
    do {
      let grouping = try MetricsDimension.parse(group)
      let commission = CommissionPolicy(
        smallBusiness: smallBusiness, taxRates: try Self.taxRates(taxes))
      let table = try rates.map { path -> CurrencyRates in
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
          throw ValidationError("--rates \(path) cannot be read")
        }
        return try CurrencyRates.read(text, reportingCurrency: currency)
      }
      if let at {
        guard from == nil, to == nil else {
          throw ValidationError("give --at, or --from and --to, not both")
        }
        return try MetricsQuery(
          at: try OptionTime.instant(at, "--at"), grouping: grouping, knownAt: knownAt, now: now,
          commission: commission, rates: table
        ).defined(by: MetricsDefinition(parsing: definition))
      }
      guard let from, let to else {
        throw ValidationError("give --from and --to (a range), or --at (an instant)")
      }
      return try MetricsQuery(
        from: try OptionTime.instant(from, "--from"), to: try OptionTime.instant(to, "--to"),
        granularity: try MetricsGranularity(parsing: by), grouping: grouping, knownAt: knownAt,
        now: now, commission: commission, rates: table, cohorts: cohorts
      ).defined(by: MetricsDefinition(parsing: definition))
    } catch let error as MetricsError {
      throw ValidationError("\(error.code): \(error.message)")
    }
  }

  /// `DEU=19` or `DEU=19.5` (percent) as basis points by storefront.
  static func taxRates(_ entries: [String]) throws -> [String: Int64] {
    var rates: [String: Int64] = [:]
    for entry in entries {
      let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, parts[0].count == 3, let percent = Double(parts[1]),
        percent >= 0, percent <= 1000
      else {
        throw ValidationError("--tax \(entry): give STOREFRONT=PERCENT, like DEU=19")
      }
      rates[parts[0].uppercased()] = Int64((percent * 100).rounded())
    }
    return rates
  }
}
