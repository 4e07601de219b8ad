import Foundation
import StoreLedger
import StoreLedgerCore

/// The numbers an on-call person looks at first.
struct OverviewPage {
  let overview: SupportQueries.Overview
  let recent: (verificationFailures: Int, webhookErrors: Int, projector: AccountProjector.Progress?)
  /// The newest notifications not understood (at most ``notUnderstoodShown``).
  let notUnderstood: [NotUnderstoodNotification]
  let notUnderstoodLink: String

  static let notUnderstoodShown = 100

  func render(into html: inout HTML) {
    html.element("div", ["class": "cards"]) { html in
      card(&html, "Accounts", AccountPage.count(overview.accounts))
      card(&html, "Notifications, last 24 h", AccountPage.count(overview.notificationsLast24Hours))
      card(
        &html, "Verification failures, last 24 h", AccountPage.count(recent.verificationFailures))
      card(&html, "Webhook errors, last 24 h", AccountPage.count(recent.webhookErrors))
      card(
        &html, "Projector lag",
        recent.projector.map { String(format: "%.1f s", $0.lagSeconds) } ?? "not run here")
      card(&html, "Refund requests waiting", AccountPage.count(overview.consumption.pending))
      card(
        &html, "Change deliveries failing",
        AccountPage.count(overview.changeDeliveries.reduce(0) { $0 + $1.retrying + $1.dead }))
      let unrouted = notUnderstood.filter { $0.isUnrouted && $0.routedTo == nil }.count
      let shown =
        notUnderstood.count == Self.notUnderstoodShown
        ? "\(Self.notUnderstoodShown)+" : "\(notUnderstood.count)"
      html.element("div", ["class": "card"]) { html in
        html.element("strong", text: shown)
        html.element(
          "a", ["href": notUnderstoodLink, "id": "not-understood-link"],
          text: "Notifications not understood (\(unrouted) unrouted)")
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

  private func card(_ html: inout HTML, _ label: String, _ value: String) {
    html.element("div", ["class": "card"]) { html in
      html.element("strong", text: value)
      html.text(label)
    }
  }

  private func statuses(_ html: inout HTML) {
    html.element("h2", text: "Subscriptions by status")
    html.table(
      caption: "As each account's view was last projected", headers: ["Status", "Subscriptions"],
      rows: Array(1...5), id: "statuses"
    ) { html, status in
      html.cell("\(status) \(SubscriptionTimeline.names[Int32(status)] ?? "")")
      html.cell(AccountPage.count(overview.subscriptionsByStatus[status] ?? 0))
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
      html.cell(AccountPage.count(entitlement.value))
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
      html.cell(AccountPage.count(endpoint.retrying))
      html.cell(AccountPage.count(endpoint.dead))
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
