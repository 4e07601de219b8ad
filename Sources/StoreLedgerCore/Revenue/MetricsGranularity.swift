import Foundation

/// The size of a metrics bucket: a UTC day, an ISO week (Monday first) or a calendar month.
public enum MetricsGranularity: String, Hashable, Sendable, Codable, CaseIterable {
  case day, week, month

  /// Reads `day`, `week` or `month`; anything else is `unknown_granularity`.
  public init(parsing text: String) throws(MetricsError) {
    guard let value = Self(rawValue: text.lowercased()) else {
      throw MetricsError(
        .unknownGranularity,
        "'\(text)' is not a bucket size; use one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))"
      )
    }
    self = value
  }
}

/// What a metrics answer can be grouped by. Amounts are always kept per currency and per
/// environment, grouped or not: they never add up across either.
public enum MetricsDimension: String, Hashable, Sendable, Codable, CaseIterable {
  case product
  /// `subscriptionGroupIdentifier`.
  case subscriptionGroup = "group"
  case storefront
  case currency
  case environment
  /// The offer that priced the transaction: `<offerType>:<offerIdentifier>` (`1:` for an
  /// introductory offer, which has no identifier), `none` without one.
  case offer

  /// Reads a comma-separated list (`product,storefront`); an unknown name is
  /// `unknown_grouping`.
  public static func parse(_ text: String) throws(MetricsError) -> [MetricsDimension] {
    var dimensions: [MetricsDimension] = []
    for part in text.split(separator: ",") {
      let name = part.trimmingCharacters(in: .whitespaces).lowercased()
      guard !name.isEmpty else { continue }
      guard let dimension = Self(rawValue: name == "subscriptiongroup" ? "group" : name) else {
        throw MetricsError(
          .unknownGrouping,
          "'\(name)' is not a grouping; use any of \(allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      if !dimensions.contains(dimension) { dimensions.append(dimension) }
    }
    return dimensions
  }
}
