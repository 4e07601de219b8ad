/// Whose rules the figures follow where subscription analytics differ
/// (docs/reference/revenue.md, "Definitions"). Both count billing grace as in force, date a
/// graceful end at the end of grace and value a period by its billing period; they differ on
/// billing retry.
public enum MetricsDefinition: String, Hashable, Sendable, Codable, CaseIterable {
  /// A subscription Apple is still retrying has not churned: it is counted apart
  /// (`inBillingRetry`), a recovery inside retry is neither churn nor a return, and a retry
  /// that runs out (60 days, 90 for a commitment plan, or Apple's EXPIRED) is billing churn
  /// dated at its end.
  case storeledger
  /// RevenueCat's published rules: churn is dated when access ends (the end of grace, else
  /// the period's end); a subscription in billing retry is not active, and a recovery after
  /// access ended is a reactivation.
  case revenuecat

  public init(parsing text: String) throws(MetricsError) {
    guard let value = Self(rawValue: text.lowercased()) else {
      throw MetricsError(
        .unknownDefinition,
        "'\(text)' is not a definition; use one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))"
      )
    }
    self = value
  }
}
