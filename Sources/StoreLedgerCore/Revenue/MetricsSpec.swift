import Foundation

/// A metrics question as a scenario file writes it (projections/README.md): times as
/// milliseconds or dates (`2026-03-01`), `by`, `group` (comma-separated), `knownAt`, `at`
/// (an instant instead of a range), `diffKnownAt` (two times), `rates` (a rate table's
/// JSON), `commission`, `cohorts` and `definition`.
public struct MetricsSpec: Sendable, Decodable {
  public var from: Timestamp?
  public var to: Timestamp?
  public var at: Timestamp?
  public var by: String?
  public var group: String?
  public var knownAt: Timestamp?
  public var diffKnownAt: [Timestamp]?
  public var rates: CurrencyRates?
  public var commission: CommissionPolicy?
  public var cohorts: Bool?
  public var definition: String?

  private enum Keys: String, CodingKey {
    case from, to, at, by, group, knownAt, diffKnownAt, rates, commission, cohorts, definition
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    func time(_ key: Keys) throws -> Timestamp? {
      guard container.contains(key) else { return nil }
      if let milliseconds = try? container.decode(Int64.self, forKey: key) {
        return Timestamp(milliseconds: milliseconds)
      }
      let text = try container.decode(String.self, forKey: key)
      guard let parsed = InstantText.parse(text) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: "'\(text)' is not a time")
      }
      return parsed
    }
    from = try time(.from)
    to = try time(.to)
    at = try time(.at)
    knownAt = try time(.knownAt)
    by = try container.decodeIfPresent(String.self, forKey: .by)
    group = try container.decodeIfPresent(String.self, forKey: .group)
    diffKnownAt = try container.decodeIfPresent([Timestamp].self, forKey: .diffKnownAt)
    commission = try container.decodeIfPresent(CommissionPolicy.self, forKey: .commission)
    cohorts = try container.decodeIfPresent(Bool.self, forKey: .cohorts)
    definition = try container.decodeIfPresent(String.self, forKey: .definition)
    if container.contains(.rates) {
      let value = try container.decode(JSONValue.self, forKey: .rates)
      let text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
      rates = try CurrencyRates.read(text)
    }
  }

  /// The query, asked at `now`.
  public func query(now: Timestamp) throws(MetricsError) -> MetricsQuery {
    let grouping = try MetricsDimension.parse(group ?? "")
    let commission = self.commission ?? CommissionPolicy()
    let definition = try MetricsDefinition(parsing: self.definition ?? "storeledger")
    if let at {
      return try MetricsQuery(
        at: at, grouping: grouping, knownAt: knownAt, now: now, commission: commission,
        rates: rates
      ).defined(by: definition)
    }
    guard let from, let to else {
      throw MetricsError(.invalidTime, "give `at`, or `from` and `to`")
    }
    return try MetricsQuery(
      from: from, to: to, granularity: try MetricsGranularity(parsing: by ?? "day"),
      grouping: grouping, knownAt: knownAt, now: now, commission: commission, rates: rates,
      cohorts: cohorts ?? false
    ).defined(by: definition)
  }
}

extension CommissionPolicy {
  private enum Keys: String, CodingKey {
    case standardRate, reducedRate, smallBusiness, taxRates
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    self.init(
      standardRate: try container.decodeIfPresent(Int64.self, forKey: .standardRate) ?? 3000,
      reducedRate: try container.decodeIfPresent(Int64.self, forKey: .reducedRate) ?? 1500,
      smallBusiness: try container.decodeIfPresent(Bool.self, forKey: .smallBusiness) ?? false,
      taxRates: try container.decodeIfPresent([String: Int64].self, forKey: .taxRates) ?? [:])
  }
}
