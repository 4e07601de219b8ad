import Foundation
import StoreLedger
import StoreLedgerCore

/// Subscriptions that entered a status in a window ("who went into billing retry during the
/// outage"), from each account's status history in Apple's time, newest first, each linked to
/// its account, with when it took effect and when the ledger could first tell it.
struct TransitionListPage {
  let page: ListPage<StatusTransitionRow>
  let form: [String: String]
  let base: String

  static let filterNames = ["status", "from", "before"]

  func render(into html: inout HTML) {
    html.element("form", ["method": "get", "action": "\(base)/transitions", "class": "filters"]) {
      html in
      html.element("label", ["for": "t-status"], text: "Entered")
      html.element("select", ["id": "t-status", "name": "status"]) { html in
        for (name, status) in AccountLists.statusNames {
          html.element(
            "option",
            ["value": String(status), "selected": form["status"] == String(status) ? "" : nil],
            text: "\(status) \(name.replacingOccurrences(of: "_", with: " "))")
        }
      }
      for (name, label) in [("from", "From"), ("before", "Before")] {
        html.element("label", ["for": "t-\(name)"], text: label + " (UTC)")
        html.void(
          "input",
          ["id": "t-\(name)", "name": name, "type": "datetime-local", "value": form[name] ?? ""])
      }
      html.element("button", ["type": "submit"], text: "List")
    }
    let values = form.filter { Self.filterNames.contains($0.key) }
    html.element("p", ["id": "list-total"]) { html in
      html.element("strong", text: AccountPage.count(page.total))
      html.text(page.total == 1 ? " subscription entered it" : " subscriptions entered it")
      html.text(" · ")
      html.element(
        "a", ["href": ConsoleLinks.url("\(base)/transitions.csv", values), "id": "csv-link"],
        text: "Download CSV (the whole list)")
    }
    guard !page.rows.isEmpty else {
      html.element("p", ["id": "list-empty"], text: "No subscription entered it in this window.")
      return
    }
    html.table(
      caption: "Newest first",
      headers: ["Took effect", "Recorded", "Customer", "Purchase", "From", "To", "Cause"],
      rows: page.rows, id: "transitions-list"
    ) { html, row in
      html.cell(row.effectiveAt.date.formatted(.iso8601))
      html.cell(row.recordedAt.date.formatted(.iso8601))
      html.element("td") { html in
        html.element(
          "a", ["href": "\(base)/accounts/\(row.appAccountToken)"], text: row.appAccountToken)
      }
      html.cell(row.originalTransactionId)
      html.cell(row.from.map { "\($0) \(SubscriptionTimeline.names[$0] ?? "")" } ?? "-")
      html.cell("\(row.to) \(SubscriptionTimeline.names[row.to] ?? "")")
      html.cell(row.cause == nil ? "time passing" : "an event")
    }
    html.nextPageLink(
      page.nextCursor.map {
        ConsoleLinks.url("\(base)/transitions", values.merging(["cursor": $0]) { $1 })
      })
  }
}
