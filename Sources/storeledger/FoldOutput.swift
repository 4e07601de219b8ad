import Foundation
import StoreLedgerCore

/// How `fold` prints a snapshot: JSON for machines, tables for people.
enum FoldOutput {
  static func json(_ snapshot: LedgerSnapshot) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return String(decoding: try encoder.encode(snapshot), as: UTF8.self) + "\n"
  }

  static func tables(_ snapshot: LedgerSnapshot) -> String {
    var output = "as of \(time(snapshot.asOf))\n\n"
    output += subscriptions(snapshot) + "\n" + purchases(snapshot) + "\n"
    output += consumables(snapshot) + "\n" + revocations(snapshot) + "\n"
    output += entitlements(snapshot)
    return output
  }

  static func explanations(_ view: LedgerView, snapshot: LedgerSnapshot) -> String {
    var output = "\nexplanations\n"
    for subscription in snapshot.subscriptions {
      if let explanation = view.explainSubscription(
        subscription.originalTransactionId, at: snapshot.asOf)
      {
        output += render(explanation, indent: "  ")
      }
    }
    for entitlement in snapshot.entitlements {
      if let explanation = view.explainEntitlement(
        entitlement.entitlement, for: entitlement.appAccountToken, at: snapshot.asOf)
      {
        output += render(explanation, indent: "  ", account: entitlement.appAccountToken)
      }
    }
    return output
  }

  private static func render(_ explanation: Explanation, indent: String, account: String? = nil)
    -> String
  {
    var text = "\(indent)\(explanation.subject)"
    if let account { text += " of \(account)" }
    text += ": \(explanation.answer)\n\(indent)  \(explanation.sentence)\n"
    text += "\(indent)  rule \(explanation.rule)\n"
    for event in explanation.events {
      let what = event.notification.map { "\(event.eventType) \($0)" } ?? event.eventType
      text += "\(indent)  - \(what), \(event.dated { time($0) })"
      text += event.transactionId.map { ", transaction \($0)" } ?? ""
      text += event.key.map { ", key \($0)" } ?? ""
      text += "\n"
    }
    for source in explanation.because where account != nil {
      text += render(source, indent: indent + "    ")
    }
    return text
  }

  private static func subscriptions(_ snapshot: LedgerSnapshot) -> String {
    var table = TextTable(
      title: "subscriptions",
      header: [
        "originalTransactionId", "product", "account", "status", "entitled", "expires", "grace",
        "autoRenew",
      ])
    for row in snapshot.subscriptions {
      let status = SubscriptionStatus(rawValue: row.status)
      table.rows.append([
        row.originalTransactionId, row.productId ?? "-", row.appAccountToken ?? "-",
        "\(row.status) \(status.name)", yes(row.entitled), time(row.expiresDate),
        time(row.gracePeriodExpiresDate),
        row.autoRenewStatus.map { $0 == 1 ? "on (\(row.autoRenewProductId ?? "-"))" : "off" }
          ?? "-",
      ])
    }
    return table.render()
  }

  private static func purchases(_ snapshot: LedgerSnapshot) -> String {
    var table = TextTable(
      title: "one-time purchases",
      header: ["transactionId", "product", "type", "account", "entitled", "ends"])
    for row in snapshot.purchases {
      table.rows.append([
        row.transactionId, row.productId ?? "-", row.type ?? "-", row.appAccountToken ?? "-",
        yes(row.entitled), time(row.expiresDate),
      ])
    }
    return table.render()
  }

  private static func consumables(_ snapshot: LedgerSnapshot) -> String {
    var table = TextTable(
      title: "consumable balances",
      header: ["account", "product", "purchased", "refunded", "debited", "balance"])
    for row in snapshot.consumables {
      table.rows.append([
        row.appAccountToken ?? "-", row.productId, "\(row.purchased)", "\(row.refunded)",
        "\(row.debited)", "\(row.balance)",
      ])
    }
    return table.render()
  }

  private static func revocations(_ snapshot: LedgerSnapshot) -> String {
    var table = TextTable(
      title: "revocations",
      header: ["transactionId", "product", "date", "reason", "type", "reversed"])
    for row in snapshot.revocations {
      table.rows.append([
        row.transactionId, row.productId ?? "-", time(row.revocationDate),
        row.revocationReason.map(String.init) ?? "-", row.revocationType ?? "-", yes(row.reversed),
      ])
    }
    return table.render()
  }

  private static func entitlements(_ snapshot: LedgerSnapshot) -> String {
    var table = TextTable(
      title: "entitlements", header: ["account", "entitlement", "active", "until", "source"])
    for row in snapshot.entitlements {
      table.rows.append([
        row.appAccountToken, row.entitlement, yes(row.active),
        row.expiresDate.map { time($0) } ?? (row.active ? "no end" : "-"), row.source,
      ])
    }
    return table.render()
  }

  private static func yes(_ value: Bool) -> String { value ? "yes" : "no" }

  static func time(_ timestamp: Timestamp?) -> String {
    guard let timestamp else { return "-" }
    return timestamp.date.formatted(Date.ISO8601FormatStyle())
  }
}
