import StoreLedger

extension HTML {
  /// A list's total, and how many rows this page shows when it is not the whole list.
  mutating func listTotal<Row>(_ page: ListPage<Row>, one: String, many: String) {
    element(
      "p", ["id": "list-total"],
      text: "\(AccountPage.count(page.total)) \(page.total == 1 ? one : many)"
        + (page.nextCursor == nil && page.rows.count == page.total
          ? "" : ", \(AccountPage.count(page.rows.count)) on this page"))
  }

  /// The link to a list's next page, when there is one.
  mutating func nextPageLink(_ href: String?) {
    guard let href else { return }
    element("p") { html in
      html.element("a", ["href": href, "id": "next-page"], text: "Next page")
    }
  }
}
