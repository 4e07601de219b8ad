import Foundation
import StoreLedger
import StoreLedgerCore

/// The numbers an on-call person looks at first.
struct OverviewPage {
  let overview: SupportQueries.Overview
  let recent: (verificationFailures: Int, webhookErrors: Int, projector: AccountProjector.Progress?)
  /// The first page of the notifications not understood (at most ``notUnderstoodShown``), with
  /// the whole list's total.
  let notUnderstood: ListPage<NotUnderstoodNotification>
  let notUnderstoodLink: String
  /// Where the console is served: every number links to its list under it.
  let base: String

  static let notUnderstoodShown = 100

  func render(into html: inout HTML) {
    html.element("div", ["class": "cards"]) { html in
      card(&html, "Accounts", AccountPage.count(overview.accounts), link: "\(base)/accounts")
      card(
        &html, "Notifications, last 24 h", AccountPage.count(overview.notificationsLast24Hours),
        link: "\(base)/today")
      card(
        &html, "Verification failures, last 24 h", AccountPage.count(recent.verificationFailures))
      card(&html, "Webhook errors, last 24 h", AccountPage.count(recent.webhookErrors))
      card(
        &html, "Projector lag",
        recent.projector.map { String(format: "%.1f s", $0.lagSeconds) } ?? "not run here")
      card(
        &html, "Refund requests waiting", AccountPage.count(overview.consumption.pending),
        link: "\(base)/refund-requests?state=open")
      card(
        &html, "Change deliveries failing",
        AccountPage.count(overview.changeDeliveries.reduce(0) { $0 + $1.retrying + $1.dead }),
        link: "\(base)/deliveries")
      // The card's number is the list's total; the unrouted ones are counted on the page
      // read, so beyond it they are "at least".
      let unrouted = notUnderstood.rows.filter { $0.isUnrouted && $0.routedTo == nil }.count
      let unroutedText =
        notUnderstood.nextCursor == nil
        ? "\(AccountPage.count(unrouted)) unrouted"
        : "at least \(AccountPage.count(unrouted)) unrouted"
      html.element("div", ["class": "card"]) { html in
        html.element(
          "strong", ["id": "not-understood-total"], text: AccountPage.count(notUnderstood.total))
        html.element(
          "a", ["href": notUnderstoodLink, "id": "not-understood-link"],
          text: "Notifications not understood (\(unroutedText))")
      }
    }
    html.element("h2", text: "Last notification")
    if let at = overview.lastNotificationAt {
      let ago = Int(Date().timeIntervalSince(at))
      html.element(
        "p", ["id": "last-notification"],
        text: "\(overview.lastNotificationType ?? "A notification") received "
          + "\(at.formatted(.iso8601)) (\(Self.duration(ago)) ago).")
    } else {
      html.element("p", ["id": "last-notification"], text: "No notification received yet.")
    }
    statuses(&html)
    entitlements(&html)
    deliveries(&html)
  }

  /// A number and what it counts; with `link`, the label opens the list behind the number.
  /// Verification failures and webhook errors are this server's counters of what it refused
  /// (nothing refused is stored, so no list holds them); the projector lag is a time.
  private func card(_ html: inout HTML, _ label: String, _ value: String, link: String? = nil) {
    html.element("div", ["class": "card"]) { html in
      html.element("strong", text: value)
      if let link {
        html.element("a", ["href": link], text: label)
      } else {
        html.text(label)
      }
    }
  }

  private func statuses(_ html: inout HTML) {
    html.element("h2", text: "Subscriptions by status")
    let weekAgo = ConsoleLinks.formTime(Date().addingTimeInterval(-7 * 86_400))
    html.table(
      caption: "As each account's view was last projected",
      headers: ["Status", "Subscriptions", "Entered in the last 7 days"],
      rows: Array(1...5), id: "statuses"
    ) { html, status in
      html.cell("\(status) \(SubscriptionTimeline.names[Int32(status)] ?? "")")
      html.element("td") { html in
        html.element(
          "a", ["href": "\(base)/accounts?status=\(status)"],
          text: AccountPage.count(overview.subscriptionsByStatus[status] ?? 0))
      }
      html.element("td") { html in
        html.element(
          "a",
          [
            "href": ConsoleLinks.url(
              "\(base)/transitions", ["status": "\(status)", "from": weekAgo])
          ],
          text: "who")
      }
    }
  }

  private func entitlements(_ html: inout HTML) {
    html.element("h2", text: "Entitlements in force")
    guard !overview.entitlementsInForce.isEmpty else {
      html.element("p", text: "None.")
      return
    }
    html.table(
      caption: nil, headers: ["Entitlement", "Accounts"],
      rows: overview.entitlementsInForce.sorted { $0.key < $1.key }
    ) { html, entitlement in
      html.cell(entitlement.key)
      html.element("td") { html in
        html.element(
          "a", ["href": ConsoleLinks.url("\(base)/accounts", ["entitlement": entitlement.key])],
          text: AccountPage.count(entitlement.value))
      }
    }
  }

  private func deliveries(_ html: inout HTML) {
    html.element("h2", text: "Change deliveries")
    guard !overview.changeDeliveries.isEmpty else {
      html.element("p", text: "No change webhook configured.")
      return
    }
    html.table(
      caption: nil, headers: ["Endpoint", "Delivered", "Waiting", "Retrying", "Dead", "Lag"],
      rows: overview.changeDeliveries
    ) { html, endpoint in
      html.cell(endpoint.endpoint)
      html.cell(AccountPage.count(endpoint.delivered))
      html.cell(AccountPage.count(endpoint.waiting + endpoint.unqueued))
      for count in [endpoint.retrying, endpoint.dead] {
        html.element("td") { html in
          html.element("a", ["href": "\(base)/deliveries"], text: AccountPage.count(count))
        }
      }
      html.cell(String(format: "%.0f s", endpoint.lagSeconds))
    }
  }

  static func duration(_ seconds: Int) -> String {
    switch seconds {
    case ..<120: "\(max(seconds, 0)) s"
    case ..<7200: "\(seconds / 60) min"
    case ..<172_800: "\(seconds / 3600) h"
    default: "\(seconds / 86_400) days"
    }
  }
}
