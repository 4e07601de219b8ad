import Foundation
import StoreLedgerCore

/// Lists as CSV (RFC 4180: comma-separated, CRLF line ends, fields quoted when they hold a
/// comma, a quote or a line break), for spreadsheets. Times are RFC 3339 in UTC; several values
/// in one field are separated by spaces. A text field a spreadsheet would run as a formula
/// (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is written with a leading
/// apostrophe, so a product id cannot become a formula in support's spreadsheet.
public enum ListCSV {
  public static let accountsHeader = [
    "appAccountToken", "changedAt", "statuses", "entitlements", "products", "storefronts",
    "environments", "nextExpiry", "viewMade",
  ]

  public static func fields(_ row: AccountListRow) -> [String] {
    [
      row.appAccountToken, time(row.changedAt),
      row.statuses.map(String.init).joined(separator: " "),
      row.entitlements.joined(separator: " "), row.products.joined(separator: " "),
      row.storefronts.joined(separator: " "), row.environments.joined(separator: " "),
      row.nextExpiry.map(time) ?? "", row.viewMade ? "true" : "false",
    ]
  }

  public static let transitionsHeader = [
    "appAccountToken", "ordinal", "originalTransactionId", "from", "to", "effectiveAt",
    "recordedAt", "cause",
  ]

  public static func fields(_ row: StatusTransitionRow) -> [String] {
    [
      row.appAccountToken, String(row.ordinal), row.originalTransactionId,
      row.from.map(String.init) ?? "", String(row.to), time(row.effectiveAt), time(row.recordedAt),
      row.cause ?? "",
    ]
  }

  public static let refundRequestsHeader = [
    "requestId", "environment", "transactionId", "originalTransactionId", "productId", "state",
    "requestedAt", "deadline", "answeredAt", "late", "problem",
  ]

  public static func fields(_ row: ConsumptionRequestReport) -> [String] {
    [
      row.requestId, row.environment, row.transactionId, row.originalTransactionId,
      row.productId ?? "", row.state.rawValue, time(row.requestedAt), time(row.deadline),
      row.answeredAt.map(time) ?? "", row.late ? "true" : "false", row.problem ?? "",
    ]
  }

  public static let notUnderstoodHeader = [
    "notificationUUID", "notificationType", "subtype", "bodyObjects", "signedDate",
    "recordedAt", "streamId", "routedTo",
  ]

  public static func fields(_ row: NotUnderstoodNotification) -> [String] {
    [
      row.notificationUUID, row.notificationType ?? "", row.subtype ?? "",
      row.bodyObjects.joined(separator: " "), row.signedDate.map(time) ?? "",
      time(Timestamp(row.recordedAt)), row.streamId, row.routedTo ?? "",
    ]
  }

  public static let deliveriesHeader = [
    "endpoint", "position", "state", "attempts", "lastStatus", "lastError", "nextAttemptAt",
  ]

  public static func fields(_ row: ChangeDelivery) -> [String] {
    [
      row.endpoint, String(row.position), row.state.word,
      String(row.attempts), row.lastStatus.map(String.init) ?? "", row.lastError ?? "",
      row.state == .dead ? "" : time(Timestamp(row.nextAttemptAt)),
    ]
  }

  /// One CSV line, CRLF-terminated.
  public static func line(_ fields: [String]) -> String {
    fields.map(field).joined(separator: ",") + "\r\n"
  }

  static func field(_ value: String) -> String {
    var value = value
    if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first),
      Double(value) == nil
    {
      value = "'" + value
    }
    guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      return value
    }
    return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  static func time(_ timestamp: Timestamp) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: timestamp.date)
  }
}
