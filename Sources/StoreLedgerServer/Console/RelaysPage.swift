import Foundation
import StoreLedger
import StoreLedgerCore

/// Relay targets: where Apple's notifications are sent on to, what each accepted, what waits
/// or died; and one target's attempts from the log (what it was sent, and when).
struct RelaysPage {
  let targets: [(RelayTarget, RelayTargetCounts)]
  let base: String

  func render(into html: inout HTML) {
    html.element(
      "p", ["id": "list-total"],
      text: "\(AccountPage.count(targets.count)) relay \(targets.count == 1 ? "target" : "targets")"
    )
    guard !targets.isEmpty else {
      html.element(
        "p", ["id": "list-empty"],
        text:
          "No relay target. An administrator adds one with `storeledger relays add NAME --url URL` "
          + "or POST /v1/relays: it then receives every notification Apple sends here, unchanged.")
      return
    }
    html.table(
      caption: "By name",
      headers: [
        "Target", "Destination", "Environments", "Types", "Delivered", "Retrying", "Waiting",
        "Dead", "Oldest waiting",
      ], rows: targets, id: "relays-list"
    ) { (html: inout HTML, entry: (RelayTarget, RelayTargetCounts)) in
      let target: RelayTarget = entry.0
      let counts: RelayTargetCounts = entry.1
      html.element("td") { html in
        html.element("a", ["href": "\(base)/relays/\(target.name)"], text: target.name)
      }
      html.cell(target.urlKey)
      html.cell(target.environments.joined(separator: ", "))
      html.cell(target.notificationTypes?.joined(separator: ", ") ?? "every type")
      html.cell(String(counts.delivered))
      html.cell(String(counts.retrying))
      html.cell(String(counts.waiting))
      html.cell(String(counts.dead))
      html.cell(counts.oldestPendingSeconds > 0 ? "\(Int(counts.oldestPendingSeconds)) s" : "-")
    }
  }
}

/// One relay target: its recent attempts from the log (of one notification when searched),
/// and its dead letters.
struct RelayTargetPage {
  let name: String
  let target: RelayTarget?
  let attempts: [RecordedRelayAttempt]
  /// How many attempts the log holds (of the notification, when one is asked).
  let attemptsTotal: Int
  /// The first page of its dead letters, with how many there are.
  let dead: ListPage<RelayDelivery>
  let notification: String?
  let base: String

  func render(into html: inout HTML) {
    if let target {
      let types: String = target.notificationTypes?.joined(separator: ", ") ?? "every type"
      let environments: String = target.environments.joined(separator: " and ")
      let since: String = target.createdAt.formatted(.iso8601)
      let sentence: String =
        "Sends \(types) of \(environments) to \(target.urlKey), since \(since) (added by \(target.createdBy))."
      html.element("p", ["id": "relay-target"], text: sentence)
    } else {
      html.element(
        "p", ["id": "relay-target"],
        text: "No target is named \(name) now; the log keeps what it was sent.")
    }
    html.element("form", ["method": "get", "action": "\(base)/relays/\(name)"]) { html in
      html.element("label", ["for": "notification"], text: "Notification UUID")
      let value: String = notification ?? ""
      html.void(
        "input",
        [
          "id": "notification", "name": "notification", "value": value,
          "placeholder": "what did it receive of this notification?",
        ])
      html.element("button", ["type": "submit"], text: "Find")
    }
    html.element(
      "p", ["id": "attempts-total"],
      text: "\(AccountPage.count(attemptsTotal)) \(attemptsTotal == 1 ? "attempt" : "attempts") "
        + "in the log"
        + (attempts.count < attemptsTotal ? "; the newest \(attempts.count) below" : "")
        + ". `storeledger relays attempts \(name)` reads them all.")
    html.table(
      caption: notification == nil
        ? "Newest attempts first, from the log" : "Attempts of this notification, from the log",
      headers: ["Sent", "Notification", "Type", "Attempt", "Outcome", "Answer", "Body SHA-256"],
      rows: attempts, id: "relay-attempts"
    ) { html, recorded in
      let attempt = recorded.attempt
      html.cell(attempt.sentAt.date.formatted(.iso8601))
      html.element("td") { html in
        let uuid = String(attempt.notification.dropFirst(5))
        html.element(
          "a", ["href": ConsoleLinks.url("\(base)/relays/\(name)", ["notification": uuid])],
          text: uuid)
      }
      html.cell(attempt.notificationType ?? "-")
      html.cell(String(attempt.attempt))
      html.cell(attempt.outcome.rawValue)
      html.cell(
        [attempt.status.map { "HTTP \($0)" }, attempt.error].compactMap { $0 }
          .joined(separator: ": "))
      html.cell(String(attempt.bodySHA256.prefix(16)) + "…")
    }
    if attempts.isEmpty {
      html.element("p", ["id": "attempts-empty"], text: "No attempt recorded.")
    }
    guard target != nil else { return }
    html.element("h2", text: "Dead letters")
    if dead.rows.isEmpty {
      html.element("p", ["id": "dead-empty"], text: "None: nothing ran out of retries.")
      return
    }
    html.element(
      "p",
      text:
        "\(AccountPage.count(dead.total)) \(dead.total == 1 ? "notification" : "notifications") ran out of retries"
        + (dead.nextCursor == nil ? "" : " (the newest \(dead.rows.count) below)")
        + ". Send them again with `storeledger relays retry \(name)` or "
        + "POST /v1/relays/\(name)/retry.")
    html.table(
      caption: "Newest first", headers: ["Notification", "Type", "Attempts", "Last answer"],
      rows: dead.rows, id: "relay-dead"
    ) { html, delivery in
      html.cell(String(delivery.notificationKey.dropFirst(5)))
      html.cell(delivery.notificationType ?? "-")
      html.cell(String(delivery.attempts))
      html.cell(
        [delivery.lastStatus.map { "HTTP \($0)" }, delivery.lastError].compactMap { $0 }
          .joined(separator: ": "))
    }
  }
}
