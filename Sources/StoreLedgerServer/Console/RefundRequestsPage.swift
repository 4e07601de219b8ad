import Foundation
import StoreLedger
import StoreLedgerCore

/// Apple's refund requests (CONSUMPTION_REQUEST) by state, the nearest deadline first for
/// those still open, each linked to the account that holds the purchase.
struct RefundRequestsPage {
  let page: ListPage<ConsumptionRequestReport>
  let state: String
  let base: String

  var requests: [ConsumptionRequestReport] { page.rows }

  static let states = ["open", "answered", "expired", "failed", "skipped", "all"]

  func render(into html: inout HTML) {
    html.element("p", ["class": "tabs"]) { html in
      for (index, name) in Self.states.enumerated() {
        if index > 0 { html.text(" · ") }
        if name == state {
          html.element("strong", text: name)
        } else {
          html.element(
            "a", ["href": ConsoleLinks.url("\(base)/refund-requests", ["state": name])], text: name)
        }
      }
    }
    html.listTotal(page, one: "request", many: "requests")
    html.element("p") { html in
      html.element(
        "a",
        [
          "href": ConsoleLinks.url("\(base)/refund-requests.csv", ["state": state]),
          "id": "csv-link",
        ], text: "Download CSV")
    }
    guard !requests.isEmpty else {
      html.element("p", ["id": "list-empty"], text: "No refund request is \(state).")
      return
    }
    html.table(
      caption: state == "open" ? "Nearest deadline first" : "Newest first",
      headers: ["Requested", "Deadline", "State", "Customer", "Transaction", "Product", "Answer"],
      rows: requests, id: "refund-requests-list"
    ) { html, request in
      html.cell(request.requestedAt.date.formatted(.iso8601))
      html.cell(request.deadline.date.formatted(.iso8601))
      html.cell(request.state.rawValue)
      html.element("td") { html in
        html.element(
          "a", ["href": ConsoleLinks.url("\(base)/search", ["q": request.transactionId])],
          text: "find the customer")
      }
      html.cell(request.transactionId)
      html.cell(request.productId ?? "-")
      html.cell(
        request.answeredAt.map {
          "answered \($0.date.formatted(.iso8601))" + (request.late ? " (late)" : "")
        }
          ?? request.problem ?? "-")
    }
    html.nextPageLink(
      page.nextCursor.map {
        ConsoleLinks.url("\(base)/refund-requests", ["state": state, "cursor": $0])
      })
  }
}
