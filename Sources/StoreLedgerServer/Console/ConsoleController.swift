import AppStoreServerAPI
import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The support console: server-rendered pages for people (sign-in with an API key kept in a
/// session cookie, search, an account at any moment, an overview). Every page is a GET of
/// library reads; the POSTs open and close a session, and look an order id up at Apple from
/// the search (which records the order in the log).
struct ConsoleController: Sendable {
  let ledger: Ledger
  let sessions: ConsoleSessions
  let ring: APIKeyRing
  let metrics: AppMetrics
  /// `/console`, or `/apps/{name}/console`.
  let base: String
  /// The cookie's path: every console of the server.
  let cookiePath: String
  let app: String?
  /// Looks up order ids at Apple from the search, when credentials are configured.
  var apple: AppStoreServerAPIClient? = nil
  /// The environment the App Store Server API client calls (Look Up Order ID answers in
  /// Production only).
  var appleEnvironment: AppStoreEnvironment? = nil

  var page: ConsolePage { ConsolePage(base: base, app: app) }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get(RouterPath("/console")) { request, _ in
      try await signedIn(request) { try await overview() }
    }
    group.get(RouterPath("/console/sign-in")) { request, _ in
      signInPage(refused: false, next: request.uri.queryParameters.get("next").map { "\($0)" })
    }
    group.post(RouterPath("/console/sign-in")) { request, context in
      guard Self.isSameOrigin(request) else { return crossOriginRefused() }
      return try await signIn(request, peer: context.remoteAddress)
    }
    group.post(RouterPath("/console/sign-out")) { request, _ in
      guard Self.isSameOrigin(request) else { return crossOriginRefused() }
      return try await signOut(request)
    }
    group.get(RouterPath("/console/search")) { request, _ in
      try await signedIn(request) { try await search(request.uri.queryParameters.get("q") ?? "") }
    }
    group.get(RouterPath("/console/not-understood")) { request, _ in
      try await signedIn(request) { try await notUnderstood(Self.values(request), csv: false) }
    }
    group.get(RouterPath("/console/not-understood.csv")) { request, _ in
      try await signedIn(request) { try await notUnderstood(Self.values(request), csv: true) }
    }
    group.get(RouterPath("/console/erasures")) { request, _ in
      try await signedIn(request) { try await erasures() }
    }
    group.get(RouterPath("/console/revenue")) { request, _ in
      try await signedIn(request) { try await revenue(Self.values(request)) }
    }
    group.get(RouterPath("/console/revenue/bucket")) { request, _ in
      try await signedIn(request) { try await revenueBucket(Self.values(request)) }
    }
    registerLists(on: group)
    registerRelays(on: group)
    registerOrderLookup(on: group)
    group.get(RouterPath("/console/accounts/{token}")) { request, context in
      try await signedIn(request) {
        let query = request.uri.queryParameters
        return try await account(
          try context.parameters.require("token"), at: query.get("at"),
          eventsPage: Self.page(query.get("events")), changesPage: Self.page(query.get("changes")))
      }
    }
    group.get(RouterPath("/console/accounts/{token}/evidence")) { request, context in
      try await signedIn(request) {
        try await evidence(
          try context.parameters.require("token"),
          key: request.uri.queryParameters.get("key").map { "\($0)" } ?? "")
      }
    }
  }

  // MARK: Pages

  private func search(_ query: String) async throws -> Response {
    let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
    let found: Result<[SupportQueries.AccountMatch], LedgerError>
    do {
      found = .success(try await SupportQueries(ledger: ledger).findAccounts(matching: query))
    } catch {
      found = .failure(error)
    }
    let matches: [SupportQueries.AccountMatch]
    switch found {
    case .success(let list): matches = list
    case .failure(let error) where error.code == .invalidRequest:
      return message("Search", error.message, status: .badRequest, query: query)
    case .failure(let error): throw error
    }
    // One account may match several ways (a chain's first transaction is its original too).
    let accounts = Dictionary(grouping: matches, by: \.appAccountToken).sorted { $0.key < $1.key }
    if accounts.count == 1, let only = accounts.first {
      return ConsolePage.redirect(to: "\(base)/accounts/\(only.key)")
    }
    guard !matches.isEmpty else {
      if let erased = try await erasedAccount(query) { return erased }
      if let lookup = orderLookupOffer(query) { return lookup }
      return message(
        "Nothing matches",
        "No customer matches \"\(query)\". Search by the customer's account id (the "
          + "appAccountToken, with or without dashes), a transaction id from their purchase, "
          + "their app download id (appTransactionId), or an order id from their receipt e-mail "
          + "once it has been looked up. A purchase no account holds yet is found after the app "
          + "links it to the customer.", status: .notFound, query: query)
    }
    // A search reads at most its limit of matches: reaching it, the count is a floor.
    let complete = matches.count < AccountSearchMatch.limit
    let title = (complete ? "" : "At least ") + "\(accounts.count) accounts match"
    let document = page.document(title: title, query: query) {
      html in
      if !complete {
        html.element(
          "p", ["class": "notice", "id": "search-incomplete"],
          text: "The search stopped at \(AccountSearchMatch.limit) matches: more accounts may "
            + "match. Search by a longer part of the id.")
      }
      html.element("ul") { html in
        for (token, ways) in accounts {
          html.element("li") { html in
            html.element("a", ["href": "\(base)/accounts/\(token)"], text: token)
            html.text(" (by \(ways.map(\.matched).joined(separator: ", ")))")
          }
        }
      }
    }
    return ConsolePage.response(document)
  }

  func message(
    _ title: String, _ text: String, status: HTTPResponse.Status, query: String = ""
  ) -> Response {
    ConsolePage.response(
      page.document(title: title, query: query) { html in
        html.element("p", ["class": "notice", "role": "status"], text: text)
      }, status: status)
  }

  /// A page number from the query: 0 when absent or not a number.
  static func page(_ text: String?) -> Int {
    text.flatMap { Int($0) }.map { max(0, min($0, 1_000_000)) } ?? 0
  }

  /// One event's claims and signature, on its own page (the account page links to it).
  private func evidence(_ token: String, key: String) async throws -> Response {
    guard let canonical = AppAccountToken.canonical(token) else {
      return message(
        "Not an account", "An appAccountToken is a UUID, such as \(AppAccountToken.example).",
        status: .badRequest, query: token)
    }
    let events = try await ledger.events(for: canonical).map(StoredEvent.init)
    guard let event = events.first(where: { $0.idempotencyKey == key }) else {
      return message(
        "No such event", "The account \(canonical) holds no event with that key.",
        status: .notFound, query: canonical)
    }
    let document = page.document(title: AccountPage.name(of: event), query: canonical) { html in
      html.element("p") { html in
        html.text("Of ")
        html.element("a", ["href": "\(base)/accounts/\(canonical)"], text: canonical)
        html.text(".")
      }
      AccountPage.evidence(of: event, into: &html)
    }
    return ConsolePage.response(document)
  }

  private func account(_ token: String, at: String?, eventsPage: Int, changesPage: Int)
    async throws -> Response
  {
    let now = Date()
    guard let time = Self.time(at, default: now) else {
      return message(
        "Not a time", "Give the time as 2026-01-31T12:00:00 (UTC).", status: .badRequest)
    }
    guard let canonical = AppAccountToken.canonical(token) else {
      return message(
        "Not an account", "An appAccountToken is a UUID, such as \(AppAccountToken.example).",
        status: .badRequest, query: token)
    }
    let recorded = try await ledger.events(for: canonical)
    let events = try recorded.map(StoredEvent.init)
    guard !events.isEmpty else {
      if let erased = try await erasedAccount(canonical) { return erased }
      return message(
        "No such account", "The ledger holds no event of \(canonical).", status: .notFound,
        query: token)
    }
    let explainer = try SupportQueries(ledger: ledger).explainer(folding: recorded)
    let view = explainer.view
    let requests = try await refundRequests(in: events)
    let (changes, changesTotal) = try await SupportQueries(ledger: ledger).newestChanges(
      of: canonical, page: changesPage, size: AccountPage.pageSize)
    let deliveries = try await ChangeDeliveryLog(ledger: ledger).changeDeliveries(
      ofPositions: changes.map(\.position))
    let accountPage = AccountPage(
      token: canonical, time: Timestamp(time), now: Timestamp(now), view: view,
      explainer: explainer,
      snapshot: view.snapshot(at: Timestamp(time)).part(for: canonical), events: events,
      requests: requests, changes: changes, changesTotal: changesTotal, eventsPage: eventsPage,
      changesPage: changesPage,
      deliveries: Dictionary(grouping: deliveries, by: \.position))
    let document = page.document(title: "Customer \(canonical)", query: canonical) { html in
      accountPage.render(into: &html, page: page)
    }
    return ConsolePage.response(document)
  }

  private func refundRequests(in events: [StoredEvent]) async throws -> [ConsumptionRequestReport] {
    let ids = Set(
      events.filter { $0.streamId.hasPrefix("consumption:") }.compactMap {
        $0.streamId.split(separator: ":").last.map(String.init)
      })
    var reports: [ConsumptionRequestReport] = []
    for id in ids.sorted() {
      reports.append(try await ConsumptionRequests(ledger: ledger).request(id))
    }
    return reports.sorted { $0.requestedAt < $1.requestedAt }
  }

  /// `at` as `datetime-local` sends it (UTC, seconds optional) or any form ``InstantText``
  /// reads; `now` without it.
  static func time(_ text: String?, default now: Date) -> Date? {
    guard let text, !text.isEmpty else { return now }
    for candidate in [text, text + "Z", text + ":00Z"] {
      if let time = InstantText.parse(candidate) { return time.date }
    }
    return nil
  }

  private func overview() async throws -> Response {
    let overview = try await SupportQueries(ledger: ledger).overview()
    let recent = metrics.server.recent(app: metrics.app)
    let notUnderstood = try await SupportQueries(ledger: ledger).notUnderstoodPage(
      limit: OverviewPage.notUnderstoodShown)
    let document = page.document(title: "Overview") { html in
      OverviewPage(
        overview: overview, recent: recent, notUnderstood: notUnderstood,
        notUnderstoodLink: "\(base)/not-understood", base: base
      ).render(into: &html)
    }
    return ConsolePage.response(document)
  }

  private func erasures() async throws -> Response {
    let erasures = try await AccountErasure(ledger: ledger).erasures()
    let document = page.document(title: "Erasures") { html in
      ErasuresPage(erasures: erasures).render(into: &html)
    }
    return ConsolePage.response(document)
  }

  /// The page of an account an erasure removed (410 Gone), nil for any other query.
  private func erasedAccount(_ query: String) async throws -> Response? {
    guard let token = AppAccountToken.fromAnySpelling(query),
      let erasure = try await AccountErasure(ledger: ledger).erasure(ofAccount: token)
    else { return nil }
    return message(
      "Erased",
      "This customer's data was erased on \(erasure.erasedAt.formatted(.iso8601)) (erasure "
        + "\(erasure.erasureId.uuidString.lowercased()), requested by \(erasure.requestedBy): "
        + "\(erasure.reason)). Later data naming the account: "
        + (erasure.later == .attach
          ? "indexed as new data." : "stored, attached to no account (quarantined)."),
      status: .gone, query: token)
  }

  private func notUnderstood(_ form: [String: String], csv: Bool) async throws -> Response {
    let support = SupportQueries(ledger: ledger)
    return try await list(
      "Notifications not understood", form, csv: csv ? "not-understood" : nil,
      header: ListCSV.notUnderstoodHeader, fields: ListCSV.fields, shown: 100,
      whole: SupportQueries.notUnderstoodPageLimit
    ) { limit, cursor in
      try await support.notUnderstoodPage(limit: limit, cursor: cursor)
    } render: { first, html in
      NotUnderstoodPage(page: first, base: base).render(into: &html)
    }
  }

  /// The query's parameters, the last of each name.
  static func values(_ request: Request) -> [String: String] {
    var values: [String: String] = [:]
    for (key, value) in request.uri.queryParameters where !value.isEmpty {
      values[String(key)] = String(value)
    }
    return values
  }
}
