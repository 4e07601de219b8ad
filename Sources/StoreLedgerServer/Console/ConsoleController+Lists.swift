import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// The console's lists across accounts: accounts by filter, status transitions, today's
/// changes and events, refund requests, failing deliveries. Bad filters get a page that says
/// what to change, never an error body.
extension ConsoleController {
  func registerLists(on group: RouterGroup<LedgerRequestContext>) {
    group.get(RouterPath("/console/accounts")) { request, _ in
      try await signedIn(request) { try await accountList(Self.values(request), csv: false) }
    }
    group.get(RouterPath("/console/accounts.csv")) { request, _ in
      try await signedIn(request) { try await accountList(Self.values(request), csv: true) }
    }
    group.get(RouterPath("/console/transitions")) { request, _ in
      try await signedIn(request) { try await transitions(Self.values(request), csv: false) }
    }
    group.get(RouterPath("/console/transitions.csv")) { request, _ in
      try await signedIn(request) { try await transitions(Self.values(request), csv: true) }
    }
    group.get(RouterPath("/console/today")) { request, _ in
      try await signedIn(request) { try await today() }
    }
    group.get(RouterPath("/console/refund-requests")) { request, _ in
      try await signedIn(request) {
        try await refundRequests(Self.values(request), csv: false)
      }
    }
    group.get(RouterPath("/console/refund-requests.csv")) { request, _ in
      try await signedIn(request) {
        try await refundRequests(Self.values(request), csv: true)
      }
    }
    group.get(RouterPath("/console/deliveries")) { request, _ in
      try await signedIn(request) { try await failingDeliveries(Self.values(request), csv: false) }
    }
    group.get(RouterPath("/console/deliveries.csv")) { request, _ in
      try await signedIn(request) { try await failingDeliveries(Self.values(request), csv: true) }
    }
  }

  /// A console time field (`datetime-local`, UTC) or RFC 3339, as a timestamp.
  static func formTime(_ form: [String: String], _ name: String) throws(LedgerError) -> Timestamp? {
    guard let text = form[name] else { return nil }
    guard let date = time(text, default: Date()) else {
      throw LedgerError(.invalidRequest, "“\(text)” is not a time: give it as 2026-01-31T12:00")
    }
    return Timestamp(date)
  }

  static func accountFilter(_ form: [String: String]) throws(LedgerError) -> AccountListFilter {
    var filter = AccountListFilter()
    filter.status = try form["status"].map { text throws(LedgerError) in
      try AccountLists.status(named: text)
    }
    filter.entitlement = form["entitlement"]
    filter.productId = form["product"]
    filter.storefront = form["storefront"]?.uppercased()
    filter.environment = form["environment"]
    filter.changedSince = try formTime(form, "changedSince")
    filter.expiresFrom = try formTime(form, "expiresFrom")
    filter.expiresBefore = try formTime(form, "expiresBefore")
    if let search = form["search"] {
      guard let prefix = AppAccountToken.prefixFromAnySpelling(search) else {
        throw LedgerError(
          .invalidRequest,
          "“Token starts with” takes the first characters of a customer's account id (letters a–f and digits). To find a customer by a transaction or order id, use the search box at the top."
        )
      }
      filter.tokenPrefix = prefix
    }
    return filter
  }

  private func accountList(_ form: [String: String], csv: Bool) async throws -> Response {
    let lists = AccountLists(ledger: ledger)
    do {
      let filter = try Self.accountFilter(form)
      let limit = csv ? AccountLists.pageLimit : 50
      let first = try await lists.accounts(filter, limit: limit, cursor: form["cursor"])
      if csv {
        return try await ListsController.csv(
          name: "accounts", header: ListCSV.accountsHeader, first: first
        ) { cursor in
          try await lists.accounts(filter, limit: limit, cursor: cursor)
        } fields: {
          ListCSV.fields($0)
        }
      }
      let document = page.document(title: Self.title(of: filter)) { html in
        AccountListPage(page: first, form: form, base: base).render(into: &html)
      }
      return ConsolePage.response(document)
    } catch let error as LedgerError
      where error.code == .invalidRequest || error.code == .invalidCursor
    {
      return message("Accounts", error.message, status: .badRequest)
    }
  }

  static func title(of filter: AccountListFilter) -> String {
    var parts: [String] = []
    if let status = filter.status {
      parts.append(
        SubscriptionTimeline.names[status].map { "in \($0.lowercased())" } ?? "status \(status)")
    }
    if let entitlement = filter.entitlement { parts.append("holding \(entitlement)") }
    if let product = filter.productId { parts.append("with \(product)") }
    if let storefront = filter.storefront { parts.append("in storefront \(storefront)") }
    if let environment = filter.environment { parts.append("in \(environment)") }
    if filter.changedSince != nil { parts.append("changed since …") }
    if filter.expiresFrom != nil || filter.expiresBefore != nil {
      parts.append("ending in a window")
    }
    if filter.tokenPrefix != nil { parts.append("whose token starts so") }
    return parts.isEmpty ? "Accounts" : "Accounts " + parts.joined(separator: ", ")
  }

  private func transitions(_ form: [String: String], csv: Bool) async throws -> Response {
    let lists = AccountLists(ledger: ledger)
    do {
      let filter = StatusTransitionFilter(
        status: try AccountLists.status(named: form["status"] ?? "3"),
        from: try Self.formTime(form, "from") ?? Timestamp(milliseconds: 0),
        before: try Self.formTime(form, "before") ?? Timestamp(milliseconds: Int64.max))
      let limit = csv ? AccountLists.pageLimit : 50
      let first = try await lists.statusTransitions(filter, limit: limit, cursor: form["cursor"])
      if csv {
        return try await ListsController.csv(
          name: "transitions", header: ListCSV.transitionsHeader, first: first
        ) { cursor in
          try await lists.statusTransitions(filter, limit: limit, cursor: cursor)
        } fields: {
          ListCSV.fields($0)
        }
      }
      var shown = form
      shown["status"] = String(filter.status)
      let name = SubscriptionTimeline.names[filter.status] ?? "status \(filter.status)"
      let document = page.document(title: "Subscriptions entering \(name)") { html in
        TransitionListPage(page: first, form: shown, base: base).render(into: &html)
      }
      return ConsolePage.response(document)
    } catch let error as LedgerError
      where error.code == .invalidRequest || error.code == .invalidCursor
    {
      return message("Transitions", error.message, status: .badRequest)
    }
  }

  private func today() async throws -> Response {
    let reader = ChangeFeedReader(ledger: ledger)
    let head = try await reader.head()
    let changes = try await reader.changes(
      after: max(0, head - Int64(TodayPage.shown)), limit: TodayPage.shown
    ).reversed()
    let events = try await SupportQueries(ledger: ledger).newestEvents(limit: TodayPage.shown)
    let document = page.document(title: "Today", refreshSeconds: TodayPage.refreshSeconds) {
      html in
      TodayPage(changes: Array(changes), events: events, base: base).render(into: &html)
    }
    return ConsolePage.response(document)
  }

  private func refundRequests(_ form: [String: String], csv: Bool) async throws -> Response {
    let state = form["state"] ?? "open"
    let phases: [ConsumptionRequest.Phase]
    switch state {
    case "open": phases = [.pending, .sending]
    case "all": phases = []
    default:
      guard let phase = ConsumptionRequest.Phase(rawValue: state) else {
        return message(
          "Refund requests",
          "There is no “\(state)” list: choose \(RefundRequestsPage.states.joined(separator: ", ")).",
          status: .badRequest)
      }
      phases = [phase]
    }
    let requests = ConsumptionRequests(ledger: ledger)
    return try await list(
      "Refund requests", form, csv: csv ? "refund-requests-\(state)" : nil,
      header: ListCSV.refundRequestsHeader, fields: ListCSV.fields, shown: 50,
      whole: ConsumptionRequests.pageLimit
    ) { limit, cursor in
      try await requests.page(states: phases, limit: limit, cursor: cursor)
    } render: { first, html in
      var first = first
      // Open requests close within a day of being asked: a page of them reads best by
      // deadline.
      if state == "open" { first.rows.sort { $0.deadline < $1.deadline } }
      RefundRequestsPage(page: first, state: state, base: base).render(into: &html)
    }
  }

  private func failingDeliveries(_ form: [String: String], csv: Bool) async throws -> Response {
    let log = ChangeDeliveryLog(ledger: ledger)
    let failing = ChangeDeliveryFilter(failing: true)
    return try await list(
      "Change deliveries failing", form, csv: csv ? "deliveries-failing" : nil,
      header: ListCSV.deliveriesHeader, fields: ListCSV.fields, shown: 50,
      whole: ChangeDeliveryLog.pageLimit
    ) { limit, cursor in
      try await log.changeDeliveriesPage(failing, limit: limit, cursor: cursor)
    } render: { first, html in
      DeliveriesPage(page: first, base: base).render(into: &html)
    }
  }

  /// A list of the console: a page of `shown` rows from the form's cursor, or (`csv`, the
  /// download's name) the whole list from it on, read `whole` rows at a time and written as
  /// it is read. A cursor edited by hand gets a page that says what to do.
  func list<Row: Sendable>(
    _ title: String, _ form: [String: String], csv: String?, header: [String],
    fields: @escaping @Sendable (Row) -> [String], shown: Int, whole: Int,
    read: @escaping @Sendable (Int, String?) async throws -> ListPage<Row>,
    render: (ListPage<Row>, inout HTML) -> Void
  ) async throws -> Response {
    do {
      let first = try await read(csv == nil ? shown : whole, form["cursor"])
      if let csv {
        return try await ListsController.csv(name: csv, header: header, first: first) {
          try await read(whole, $0)
        } fields: {
          fields($0)
        }
      }
      let document = page.document(title: title) { html in render(first, &html) }
      return ConsolePage.response(document)
    } catch let error as LedgerError where error.code == .invalidCursor {
      return message(title, error.message, status: .badRequest)
    }
  }
}
