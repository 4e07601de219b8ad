import Foundation
import StoreLedger
import StoreLedgerCore

/// A list of accounts with its filter form: who is in billing retry, who holds "pro", whose
/// period ends this week. Each row links to the account; the list pages by cursor and
/// downloads as CSV.
struct AccountListPage {
  let page: ListPage<AccountListRow>
  /// The form's values as the request gave them (to fill the form and build links).
  let form: [String: String]
  let base: String

  static let filterNames = [
    "status", "entitlement", "product", "storefront", "environment", "changedSince",
    "expiresFrom", "expiresBefore", "search",
  ]

  func render(into html: inout HTML) {
    filterForm(&html)
    html.element("p", ["id": "list-total"]) { html in
      html.element("strong", text: AccountPage.count(page.total))
      html.text(page.total == 1 ? " account" : " accounts")
      html.text(" · ")
      html.element(
        "a", ["href": link("\(base)/accounts.csv", dropping: ["cursor"]), "id": "csv-link"],
        text: "Download CSV (the whole list)")
    }
    guard !page.rows.isEmpty else {
      html.element(
        "p", ["id": "list-empty"],
        text: "No account matches these filters. Views are as the projector last stored them.")
      return
    }
    html.table(
      caption: "Newest change first",
      headers: [
        "Customer", "Changed", "Subscriptions", "Entitlements", "Products", "Storefront",
        "Ends next",
      ],
      rows: page.rows, id: "accounts-list"
    ) { html, row in
      html.element("td") { html in
        html.element(
          "a", ["href": "\(base)/accounts/\(row.appAccountToken)"], text: row.appAccountToken)
      }
      html.cell(row.changedAt.milliseconds == 0 ? "-" : row.changedAt.date.formatted(.iso8601))
      guard row.viewMade else {
        // Listed because the log names it; its facts come once the projector reaches it.
        html.element(
          "td", ["colspan": "5", "class": "view-not-made"],
          text: "Its view is not made yet: the projector has not reached this account. "
            + "Its page reads it from the log.")
        return
      }
      html.cell(
        row.statuses.map { "\($0) \(SubscriptionTimeline.names[$0] ?? "")" }.joined(separator: ", ")
      )
      html.cell(row.entitlements.joined(separator: ", "))
      html.cell(row.products.joined(separator: ", "))
      html.cell(row.storefronts.joined(separator: ", "))
      html.cell(row.nextExpiry.map { $0.date.formatted(.iso8601) } ?? "-")
    }
    html.nextPageLink(page.nextCursor.map { link("\(base)/accounts", setting: ["cursor": $0]) })
  }

  private func filterForm(_ html: inout HTML) {
    html.element("form", ["method": "get", "action": "\(base)/accounts", "class": "filters"]) {
      html in
      html.element("label", ["for": "f-status"], text: "Status")
      html.element("select", ["id": "f-status", "name": "status"]) { html in
        html.element("option", ["value": ""], text: "any")
        for (name, status) in AccountLists.statusNames {
          let selected = form["status"] == String(status) || form["status"] == name
          html.element(
            "option", ["value": String(status), "selected": selected ? "" : nil],
            text: "\(status) \(name.replacingOccurrences(of: "_", with: " "))")
        }
      }
      for (name, label) in [
        ("entitlement", "Entitlement"), ("product", "Product"), ("storefront", "Storefront"),
        ("search", "Token starts with"),
      ] {
        html.element("label", ["for": "f-\(name)"], text: label)
        html.void(
          "input", ["id": "f-\(name)", "name": name, "value": form[name] ?? "", "size": "14"])
      }
      html.element("label", ["for": "f-environment"], text: "Environment")
      html.element("select", ["id": "f-environment", "name": "environment"]) { html in
        html.element("option", ["value": ""], text: "any")
        for environment in AccountLists.environments {
          html.element(
            "option",
            ["value": environment, "selected": form["environment"] == environment ? "" : nil],
            text: environment)
        }
      }
      for (name, label) in [
        ("changedSince", "Changed since"), ("expiresFrom", "Ends from"),
        ("expiresBefore", "Ends before"),
      ] {
        html.element("label", ["for": "f-\(name)"], text: label + " (UTC)")
        html.void(
          "input",
          ["id": "f-\(name)", "name": name, "type": "datetime-local", "value": form[name] ?? ""])
      }
      html.element("button", ["type": "submit"], text: "List")
    }
  }

  /// This list's address with `setting` changed and `dropping` removed.
  private func link(
    _ path: String, setting: [String: String] = [:], dropping: Set<String> = []
  ) -> String {
    var values = form.filter { Self.filterNames.contains($0.key) && !dropping.contains($0.key) }
    for (key, value) in setting { values[key] = value }
    return ConsoleLinks.url(path, values)
  }
}
