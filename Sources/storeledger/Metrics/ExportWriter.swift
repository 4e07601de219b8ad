import Foundation
import StoreLedgerCore

/// Rows of the revenue analytics as CSV or JSON lines.
struct ExportWriter {
  let format: ExportCommand.Format
  let table: ExportCommand.Table
  let from: Timestamp?
  let to: Timestamp?

  static let entryColumns = [
    "position", "chain", "original_transaction_id", "transaction_id", "kind", "occurred_at",
    "amount", "estimated_proceeds", "currency", "environment", "product_id",
    "subscription_group", "storefront", "offer", "reason",
  ]
  static let periodColumns = [
    "position", "chain", "original_transaction_id", "transaction_id", "starts_at", "ends_at",
    "is_trial", "monthly_value", "seats", "currency", "environment", "product_id",
    "subscription_group", "storefront", "offer", "in_grace",
  ]

  var columns: [String] { table == .entries ? Self.entryColumns : Self.periodColumns }

  var header: String { columns.joined(separator: ",") + "\n" }

  /// One chain's rows (those in the range).
  mutating func write(_ chain: ChainRevenue, into text: inout String) {
    for timeline in chain.timelines {
      switch table {
      case .entries:
        for entry in timeline.entries where inRange(entry.date, entry.date) {
          let a = entry.attributes
          row(
            [
              .text(chain.position.description), .text(chain.chain),
              .text(entry.originalTransactionId), .text(entry.transactionId),
              .text(entry.kind.rawValue), .time(entry.date), .number(entry.amount),
              .number(entry.proceeds), .text(a.currency), .text(a.environment),
              .optional(a.productId), .optional(a.subscriptionGroup), .optional(a.storefront),
              .text(a.offer), .optional(entry.reason?.rawValue),
            ], into: &text)
        }
      case .periods:
        for segment in timeline.segments where inRange(segment.start, segment.end) {
          let a = segment.attributes
          row(
            [
              .text(chain.position.description), .text(chain.chain),
              .text(segment.originalTransactionId), .text(segment.transactionId),
              .time(segment.start), .time(segment.end), .bool(segment.isTrial),
              .number(segment.monthlyValue), .number(segment.seats), .text(a.currency),
              .text(a.environment), .optional(a.productId), .optional(a.subscriptionGroup),
              .optional(a.storefront), .text(a.offer), .bool(segment.inGrace),
            ], into: &text)
        }
      }
    }
  }

  /// Whether a row from `start` to `end` (the same for a dated entry) meets the range.
  private func inRange(_ start: Timestamp, _ end: Timestamp) -> Bool {
    if let from, end < from { return false }
    if let to, start >= to { return false }
    return true
  }

  enum Value {
    case text(String)
    case optional(String?)
    case number(Int64)
    case bool(Bool)
    case time(Timestamp)
  }

  private func row(_ values: [Value], into text: inout String) {
    switch format {
    case .csv:
      text += values.map(Self.csv).joined(separator: ",") + "\n"
    case .jsonl:
      text +=
        "{"
        + zip(columns, values).map { "\"\($0)\":\(Self.json($1))" }.joined(separator: ",")
        + "}\n"
    }
  }

  static func iso(_ time: Timestamp) -> String {
    time.date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
  }

  static func csv(_ value: Value) -> String {
    switch value {
    case .text(let text): quoted(text)
    case .optional(let text): text.map(quoted) ?? ""
    case .number(let number): String(number)
    case .bool(let flag): flag ? "true" : "false"
    case .time(let time): iso(time)
    }
  }

  /// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
  static func quoted(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  static func json(_ value: Value) -> String {
    switch value {
    case .text(let text): JSONText.string(text)
    case .optional(let text): text.map(JSONText.string) ?? "null"
    case .number(let number): String(number)
    case .bool(let flag): flag ? "true" : "false"
    case .time(let time): JSONText.string(iso(time))
    }
  }
}

/// A JSON string literal.
enum JSONText {
  static func string(_ text: String) -> String {
    let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}
