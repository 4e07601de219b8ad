/// A metrics answer: rows per bucket, group, environment and currency, the same rows in a
/// reporting currency when a rate table was given, and the cohort table when asked for.
/// Proceeds are estimates (`estimated` says so in every answer).
public struct MetricsReport: Hashable, Sendable, Codable {
  public struct Row: Hashable, Sendable, Codable {
    public var start: Timestamp
    public var end: Timestamp
    /// The grouping's values, by dimension name (`product`, `group`, `storefront`, `offer`).
    public var group: [String: String]
    public var environment: String
    /// ISO 4217 (the reporting currency in ``Reporting/rows``).
    public var currency: String
    public var figures: MetricsFigures
  }

  public struct Reporting: Hashable, Sendable, Codable {
    public var currency: String
    /// The rates used, as given.
    public var rates: [CurrencyRates.Rate]
    public var rows: [Row]
  }

  /// One cohort (subscriptions whose first period began in `cohort`) in one later month.
  public struct CohortRow: Hashable, Sendable, Codable {
    /// `YYYY-MM`.
    public var cohort: String
    /// Months after the cohort's month (0: the month itself).
    public var month: Int
    public var environment: String
    public var currency: String
    public var subscriptions: Int64
    /// Of them, with a paid period in force at the month's end.
    public var retained: Int64
    public var retention: Double?
    /// Net revenue of the cohort in that month (milliunits).
    public var revenue: Int64
  }

  public var from: Timestamp
  public var to: Timestamp
  /// `day`, `week`, `month`, or `instant` for `--at`.
  public var by: String
  public var grouping: [String]
  public var knownAt: Timestamp?
  /// Ends after this had not happened when asked.
  public var horizon: Timestamp
  public var estimated: Bool
  public var commission: CommissionPolicy
  /// Whose rules decided churn (docs/reference/revenue.md, "Definitions").
  public var definition: MetricsDefinition
  public var rows: [Row]
  public var reporting: Reporting?
  public var cohorts: [CohortRow]?
  /// The figures' names and units, for readers of the JSON.
  public var units: String
}
