/// Why a metrics question could not be answered: a range, a grouping, a rate table or a
/// commission the caller gave. Nothing is computed when one is thrown; `code` is stable and
/// `message` names what to fix.
public struct MetricsError: Error, Hashable, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// `to` is not after `from`.
    public static let rangeReversed = Code(rawValue: "range_reversed")
    /// More buckets than one answer holds.
    public static let rangeTooLong = Code(rawValue: "range_too_long")
    /// A grouping that is not one of ``MetricsDimension``.
    public static let unknownGrouping = Code(rawValue: "unknown_grouping")
    /// A bucket size that is not `day`, `week` or `month`.
    public static let unknownGranularity = Code(rawValue: "unknown_granularity")
    /// A rate table names a currency ISO 4217 does not know.
    public static let unknownCurrency = Code(rawValue: "unknown_currency")
    /// The range holds amounts in a currency the rate table has no rate for (at that date).
    public static let rateMissing = Code(rawValue: "rate_missing")
    /// A rate table that cannot be read (syntax, a rate that is not a positive number).
    public static let invalidRateTable = Code(rawValue: "invalid_rate_table")
    /// A commission or tax rate outside 0–100 %.
    public static let invalidCommission = Code(rawValue: "invalid_commission")
    /// A time that cannot be read.
    public static let invalidTime = Code(rawValue: "invalid_time")
    /// A definition that is not one of ``MetricsDefinition``.
    public static let unknownDefinition = Code(rawValue: "unknown_definition")

    public static let all: [Code] = [
      .rangeReversed, .rangeTooLong, .unknownGrouping, .unknownGranularity, .unknownCurrency,
      .rateMissing, .invalidRateTable, .invalidCommission, .invalidTime, .unknownDefinition,
    ]
  }

  public let code: Code
  /// What is wrong and what to do, without payloads or secrets.
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }
}
