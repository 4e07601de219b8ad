import Foundation

/// An operator's exchange-rate table: how many units of one reporting currency one unit of
/// each other currency is worth, optionally from a date on. StoreLedger never fetches rates:
/// the table comes from a file or the API, so every converted figure can be reproduced.
///
/// JSON: `{"reportingCurrency": "USD", "rates": [{"currency": "EUR", "rate": "1.08",
/// "from": "2026-01-01"}]}` (`rate` a decimal string or number, `from` optional). CSV: lines
/// `currency,rate[,from]`, an optional header, the reporting currency given beside.
public struct CurrencyRates: Hashable, Sendable {
  /// Rates carry nine decimal places.
  public static let scale: Int64 = 1_000_000_000

  public struct Rate: Hashable, Sendable, Codable {
    public var currency: String
    /// Units of the reporting currency per unit, × ``CurrencyRates/scale``.
    public var scaled: Int64
    /// In force from this time on (nil: always).
    public var from: Timestamp?
  }

  public let reportingCurrency: String
  /// By currency, oldest `from` first.
  private let rates: [String: [Rate]]

  /// Every rate, by currency then date.
  public var entries: [Rate] { rates.keys.sorted().flatMap { rates[$0] ?? [] } }

  public init(reportingCurrency: String, rates: [Rate]) throws(MetricsError) {
    let reporting = reportingCurrency.uppercased()
    try Self.check(reporting, where: "the reporting currency")
    var byCurrency: [String: [Rate]] = [:]
    for var rate in rates {
      rate.currency = rate.currency.uppercased()
      try Self.check(rate.currency, where: "the rate table")
      guard rate.scaled > 0 else {
        throw MetricsError(
          .invalidRateTable, "the rate of \(rate.currency) must be a positive number")
      }
      byCurrency[rate.currency, default: []].append(rate)
    }
    for (currency, list) in byCurrency {
      let sorted = list.sorted { ($0.from?.milliseconds ?? .min) < ($1.from?.milliseconds ?? .min) }
      for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier.from == later.from {
        throw MetricsError(
          .invalidRateTable,
          "\(currency) has two rates from \(later.from.map(MetricsCalendar.dateText) ?? "the start"); keep one"
        )
      }
      byCurrency[currency] = sorted
    }
    self.reportingCurrency = reporting
    self.rates = byCurrency
  }

  private static func check(_ currency: String, where place: String) throws(MetricsError) {
    guard ISO4217.codes.contains(currency) else {
      throw MetricsError(
        .unknownCurrency,
        "\(place) names '\(currency)', which is not an ISO 4217 currency code (like USD, EUR, JPY)"
      )
    }
  }

  /// The rate of `currency` in force at `time` (1 for the reporting currency), nil when the
  /// table has none.
  public func rate(of currency: String, at time: Timestamp) -> Int64? {
    if currency == reportingCurrency { return Self.scale }
    return rates[currency]?.last { ($0.from?.milliseconds ?? .min) <= time.milliseconds }?.scaled
  }

  /// `amount` milliunits of `currency` in milliunits of the reporting currency at `time`,
  /// rounded half away from zero; `rate_missing` without a rate.
  public func convert(_ amount: Int64, of currency: String, at time: Timestamp)
    throws(MetricsError) -> Int64
  {
    guard let rate = rate(of: currency, at: time) else {
      throw MetricsError(
        .rateMissing,
        "the range holds amounts in \(currency) on \(MetricsCalendar.dateText(time)), and the rate table has no rate for it then; add a \(currency) rate to \(reportingCurrency)"
      )
    }
    return Int64(
      CommissionPolicy.divideRounded(Int128(amount) * Int128(rate), Int128(Self.scale)))
  }

  // MARK: Reading

  /// Reads a decimal rate (`1.08`, `0.0071`) exactly, to nine places.
  static func scaled(_ text: String) -> Int64? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = parts.first, !whole.isEmpty || parts.count == 2,
      whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber)
    else { return nil }
    var fraction = parts.count == 2 ? String(parts[1]) : ""
    guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }), fraction.count <= 9,
      !(whole.isEmpty && fraction.isEmpty), whole.count <= 9
    else { return nil }
    fraction += String(repeating: "0", count: 9 - fraction.count)
    guard let units = Int64(whole.isEmpty ? "0" : String(whole)), let part = Int64(fraction)
    else { return nil }
    return units * scale + part
  }

  /// Reads a JSON table (reporting currency inside, or `reportingCurrency` when absent) or
  /// a CSV one (`reportingCurrency` required).
  public static func read(_ text: String, reportingCurrency: String? = nil) throws(MetricsError)
    -> CurrencyRates
  {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.hasPrefix("{") { return try readJSON(trimmed, reportingCurrency: reportingCurrency) }
    guard let reportingCurrency else {
      throw MetricsError(
        .invalidRateTable,
        "a CSV rate table needs the reporting currency beside it (--currency USD)")
    }
    var rates: [Rate] = []
    for (index, line) in trimmed.split(whereSeparator: \.isNewline).enumerated() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      if index == 0, fields.first?.lowercased() == "currency" { continue }
      if fields.allSatisfy(\.isEmpty) { continue }
      guard fields.count == 2 || fields.count == 3 else {
        throw MetricsError(
          .invalidRateTable, "line \(index + 1): expected currency,rate[,from]")
      }
      rates.append(try rate(fields[0], fields[1], fields.count == 3 ? fields[2] : nil, index + 1))
    }
    return try CurrencyRates(reportingCurrency: reportingCurrency, rates: rates)
  }

  private static func rate(_ currency: String, _ value: String, _ from: String?, _ line: Int)
    throws(MetricsError) -> Rate
  {
    guard let scaled = scaled(value), scaled > 0 else {
      throw MetricsError(
        .invalidRateTable,
        "line \(line): the rate of \(currency) is '\(value)'; give a positive decimal like 1.08")
    }
    var start: Timestamp?
    if let from, !from.isEmpty {
      guard let time = InstantText.parse(from) else {
        throw MetricsError(
          .invalidRateTable, "line \(line): '\(from)' is not a date; give YYYY-MM-DD")
      }
      start = time
    }
    return Rate(currency: currency, scaled: scaled, from: start)
  }

  private static func readJSON(_ text: String, reportingCurrency: String?) throws(MetricsError)
    -> CurrencyRates
  {
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    else {
      throw MetricsError(.invalidRateTable, "the rate table is not a JSON object")
    }
    guard let reporting = (object["reportingCurrency"] as? String) ?? reportingCurrency else {
      throw MetricsError(
        .invalidRateTable, "the rate table names no reportingCurrency (like \"USD\")")
    }
    guard let list = object["rates"] as? [[String: Any]] else {
      throw MetricsError(
        .invalidRateTable,
        "the rate table needs \"rates\": [{\"currency\": \"EUR\", \"rate\": \"1.08\"}]")
    }
    var rates: [Rate] = []
    for (index, entry) in list.enumerated() {
      guard let currency = entry["currency"] as? String else {
        throw MetricsError(.invalidRateTable, "rates[\(index)] has no currency")
      }
      let value: String
      if let text = entry["rate"] as? String {
        value = text
      } else if let number = entry["rate"] as? NSNumber {
        value = number.stringValue
      } else {
        throw MetricsError(.invalidRateTable, "rates[\(index)] has no rate")
      }
      rates.append(try rate(currency, value, entry["from"] as? String, index + 1))
    }
    return try CurrencyRates(reportingCurrency: reporting, rates: rates)
  }

  /// The table as JSON text (the form `read` takes).
  public var jsonText: String {
    let list = entries.map { rate -> String in
      let whole = rate.scaled / Self.scale
      var fraction = String(rate.scaled % Self.scale)
      fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      let value = fraction.isEmpty ? "\(whole)" : "\(whole).\(fraction)"
      let from = rate.from.map { ",\"from\":\"\(MetricsCalendar.dateText($0))\"" } ?? ""
      return "{\"currency\":\"\(rate.currency)\",\"rate\":\"\(value)\"\(from)}"
    }
    return
      "{\"reportingCurrency\":\"\(reportingCurrency)\",\"rates\":[\(list.joined(separator: ","))]}"
  }
}
