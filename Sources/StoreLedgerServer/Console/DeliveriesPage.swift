import Foundation
import StoreLedger
import StoreLedgerCore

/// Change deliveries that are failing: retrying (sent at least once, not accepted yet) and
/// dead (retries ran out), with the receiver's last answer.
struct DeliveriesPage {
  let page: ListPage<ChangeDelivery>
  let base: String

  var deliveries: [ChangeDelivery] { page.rows }

  func render(into html: inout HTML) {
    html.listTotal(page, one: "failing delivery", many: "failing deliveries")
    html.element("p") { html in
      html.element(
        "a", ["href": "\(base)/deliveries.csv", "id": "csv-link"], text: "Download CSV")
    }
    guard !deliveries.isEmpty else {
      html.element("p", ["id": "list-empty"], text: "No delivery is failing.")
      return
    }
    html.table(
      caption: "The newest change first",
      headers: ["Endpoint", "Position", "State", "Attempts", "Last answer", "Next attempt"],
      rows: deliveries, id: "deliveries-list"
    ) { html, delivery in
      html.cell(delivery.endpoint)
      html.cell(String(delivery.position))
      html.cell(delivery.state.word)
      html.cell(String(delivery.attempts))
      html.cell(
        [delivery.lastStatus.map { "HTTP \($0)" }, delivery.lastError].compactMap { $0 }
          .joined(separator: ": "))
      html.cell(delivery.state == .dead ? "-" : delivery.nextAttemptAt.formatted(.iso8601))
    }
    html.nextPageLink(
      page.nextCursor.map { ConsoleLinks.url("\(base)/deliveries", ["cursor": $0]) })
  }
}
