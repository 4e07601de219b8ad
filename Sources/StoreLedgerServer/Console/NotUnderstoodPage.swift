import Foundation
import StoreLedger
import StoreLedgerCore

/// The verified notifications this release stored but does not understand: what an operator
/// checks after Apple adds a notification type or body object.
struct NotUnderstoodPage {
  let page: ListPage<NotUnderstoodNotification>
  let base: String

  var notifications: [NotUnderstoodNotification] { page.rows }

  func render(into html: inout HTML) {
    html.element(
      "p",
      text: "Each was verified (Apple's chain and signature) and stored; none grants or revokes "
        + "anything. \"Unrouted\" ones name no app this release can read and are kept apart; "
        + "a release that reads them routes them at its next rebuild or replay "
        + "(storeledger not-understood --reexamine).")
    html.listTotal(page, one: "notification", many: "notifications")
    html.element("p") { html in
      html.element(
        "a", ["href": "\(base)/not-understood.csv", "id": "csv-link"], text: "Download CSV")
    }
    guard !notifications.isEmpty else {
      html.element(
        "p", ["id": "not-understood-none"], text: "None: every stored notification is understood.")
      return
    }
    html.table(
      caption: "Newest stored first",
      headers: ["Notification", "Type", "Subtype", "Body objects", "Signed by Apple", "Stored in"],
      rows: notifications, id: "not-understood"
    ) { html, item in
      html.cell(item.notificationUUID)
      html.cell(item.notificationType ?? "-")
      html.cell(item.subtype ?? "-")
      html.cell(item.bodyObjects.isEmpty ? "-" : item.bodyObjects.joined(separator: ", "))
      html.cell(item.signedDate.map { $0.date.formatted(.iso8601) } ?? "-")
      html.cell(
        item.isUnrouted
          ? (item.routedTo.map { "unrouted, routed since to \($0)" } ?? "unrouted")
          : item.streamId)
    }
    html.nextPageLink(
      page.nextCursor.map { ConsoleLinks.url("\(base)/not-understood", ["cursor": $0]) })
  }
}
