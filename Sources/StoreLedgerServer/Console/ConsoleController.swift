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
      try await signedIn(request) { try await notUnderstood() }
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

  // MARK: Sessions

  private func session(of request: Request) -> String? {
    for field in request.headers[values: .cookie] {
      for pair in field.split(separator: ";") {
        let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
        if parts.count == 2, parts[0] == ConsoleSessions.cookie { return String(parts[1]) }
      }
    }
    return nil
  }

  func signedIn(_ request: Request, _ page: () async throws -> Response) async throws
    -> Response
  {
    guard let token = session(of: request), let reference = sessions.keyReference(token),
      try await !ConsoleSignOuts(ledger: ledger).isSignedOut(token),
      let grant = try await ring.grant(session: reference), grant.allows(.console)
    else {
      // The page asked for comes back after sign-in: a link pasted into a ticket opens it.
      var destination = request.uri.path
      if let query = request.uri.query, !query.isEmpty { destination += "?" + query }
      let next = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
      return ConsolePage.redirect(to: "\(base)/sign-in?next=\(next)")
    }
    return try await ConsolePage.$grant.withValue(grant) { try await page() }
  }

  /// A console page to return to after sign-in: a path of this console, nothing else (no
  /// other site, no scheme, no `//host`).
  func destination(_ next: String?) -> String? {
    guard let next, next == base || next.hasPrefix(base + "/") || next.hasPrefix(base + "?"),
      !next.hasPrefix("//"), !next.contains("\\"),
      !next.unicodeScalars.contains(where: { $0.value < 0x20 })
    else { return nil }
    return next
  }

  /// A form may only be posted from a page of this server: browsers say where a request comes
  /// from (`Sec-Fetch-Site`, `Origin`); one from another site is refused. Tools that send
  /// neither header (curl) are not browsers and carry no ambient cookie to abuse.
  static func isSameOrigin(_ request: Request) -> Bool {
    // Browsers of the last years say it outright; the pages' no-referrer policy makes their
    // Origin "null", so Sec-Fetch-Site decides when it is there.
    if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] {
      return site == "same-origin" || site == "none"
    }
    guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
    guard let host = request.headers[HTTPField.Name("Host")!] ?? request.head.authority,
      let url = URL(string: origin), let originHost = url.host
    else { return false }
    let originAuthority = originHost + (url.port.map { ":\($0)" } ?? "")
    return originAuthority.lowercased() == host.lowercased()
  }

  private func crossOriginRefused() -> Response {
    message(
      "Refused",
      "A console form can only be sent from the console itself. Open the console and "
        + "try again.", status: .forbidden)
  }

  private func signInPage(
    refused: Bool, next: String? = nil, scopes: Set<APIKeyScope>? = nil
  ) -> Response {
    let document = page.document(title: "Sign in", signedIn: false) { html in
      if let scopes {
        html.element(
          "p", ["class": "error", "role": "alert"],
          text: "That key may not open the console: its scopes are "
            + scopes.sorted().map(\.rawValue).joined(separator: ", ")
            + ". Use a key with the console scope.")
      } else if refused {
        html.element(
          "p", ["class": "error", "role": "alert"],
          text: "That key was not accepted. Use one of the server's API keys.")
      }
      html.element("form", ["method": "post", "action": "\(base)/sign-in"]) { html in
        if let next = destination(next) {
          html.void("input", ["type": "hidden", "name": "next", "value": next])
        }
        html.element("p") { html in
          html.element("label", ["for": "key"], text: "API key ")
          html.void(
            "input",
            [
              "id": "key", "name": "key", "type": "password", "required": "",
              "autocomplete": "off", "autofocus": "", "size": "40",
            ])
        }
        html.element("button", ["type": "submit"], text: "Sign in")
      }
      html.element(
        "p",
        text: "The console only reads the ledger. The key stays on this server: the browser keeps "
          + "a session cookie that ends after eight hours or at sign-out.")
    }
    return ConsolePage.response(document, status: refused ? .unauthorized : .ok)
  }

  private func signIn(_ request: Request, peer: SocketAddress?) async throws -> Response {
    let body = try await request.body.collect(upTo: 4096)
    let form = String(buffer: body)
    // A key pasted with a space or a line break around it is the same key.
    let key = (Self.formValue("key", in: form) ?? "").trimmingCharacters(
      in: .whitespacesAndNewlines)
    let next = Self.formValue("next", in: form)
    let found: APIKeyGrant?
    do {
      found = try await ring.grant(for: key, peer: peer, headers: request.headers)
    } catch let error as APIError where error.status == .tooManyRequests {
      return message("Sign in", "\(error.message).", status: .tooManyRequests)
    }
    guard let grant = found else {
      return signInPage(refused: true, next: next)
    }
    guard grant.allows(.console) else {
      return signInPage(refused: true, next: next, scopes: grant.scopes)
    }
    let token = sessions.open(keyReference: grant.keyId ?? "configured")
    let secure = request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https" ? "; Secure" : ""
    // Lax: a link followed from a ticket or a chat carries the session; a form posted from
    // another site does not (and is refused anyway, isSameOrigin).
    return ConsolePage.redirect(
      to: destination(next) ?? base,
      cookie: "\(ConsoleSessions.cookie)=\(token); Path=\(cookiePath); HttpOnly; SameSite=Lax; "
        + "Max-Age=\(Int(sessions.lifetime.components.seconds))\(secure)")
  }

  /// Ends the session here at once, and on every server of the database (and one started
  /// later) from the sign-out's record: a copied cookie opens nothing afterwards.
  private func signOut(_ request: Request) async throws -> Response {
    if let token = session(of: request), let expiry = sessions.expiry(of: token) {
      sessions.close(token)
      try await ConsoleSignOuts(ledger: ledger).record(token, expiresAt: expiry)
    }
    return ConsolePage.redirect(
      to: "\(base)/sign-in",
      cookie: "\(ConsoleSessions.cookie)=; Path=\(cookiePath); HttpOnly; SameSite=Lax; Max-Age=0"
    )
  }

  /// A value of an `application/x-www-form-urlencoded` body.
  static func formValue(_ name: String, in body: String) -> String? {
    for pair in body.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0] == name else { continue }
      return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
    return nil
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
    let document = page.document(title: "\(accounts.count) accounts match", query: query) {
      html in
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
    let notUnderstood = try await SupportQueries(ledger: ledger).notUnderstood(
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

  private func notUnderstood() async throws -> Response {
    let limit = 500
    let notifications = try await SupportQueries(ledger: ledger).notUnderstood(limit: limit)
    let document = page.document(title: "Notifications not understood") { html in
      NotUnderstoodPage(notifications: notifications, limit: limit).render(into: &html)
    }
    return ConsolePage.response(document)
  }

  /// The query's parameters, the last of each name.
  static func values(_ request: Request) -> [String: String] {
    var values: [String: String] = [:]
    for (key, value) in request.uri.queryParameters where !value.isEmpty {
      values[String(key)] = String(value)
    }
    return values
  }

  // MARK: Revenue

  private func revenue(_ form: [String: String]) async throws -> Response {
    let now = Timestamp(Date())
    func time(_ name: String) throws(MetricsError) -> Timestamp? {
      guard let text = form[name] else { return nil }
      guard let time = InstantText.parse(text) else {
        throw MetricsError(.invalidTime, InstantText.problem(name, text))
      }
      return time
    }
    do {
      // By default the twelve months to the end of this one.
      let thisMonth = MetricsCalendar.start(of: .month, holding: now)
      var start = thisMonth
      for _ in 0..<11 {
        start = MetricsCalendar.start(
          of: .month, holding: Timestamp(milliseconds: start.milliseconds - 1))
      }
      let from = try time("from") ?? start
      let to = try time("to") ?? MetricsCalendar.next(.month, after: thisMonth)
      let by = try MetricsGranularity(parsing: form["by"] ?? "month")
      let known = try time("known")
      let query = try MetricsQuery(
        from: from, to: to, granularity: by, knownAt: known, now: now, cohorts: by == .month
      ).defined(by: MetricsDefinition(parsing: form["definition"] ?? "storeledger"))
      let metrics = LedgerMetrics(ledger: ledger)
      let report = try await metrics.report(query)
      var diff: MetricsDiff?
      if let compare = try time("compare") {
        diff = try await metrics.diff(query.knowing(nil), knownAt: compare, known ?? now)
      }
      let document = page.document(title: "Revenue") { html in
        RevenuePage(
          report: report, environment: form["environment"], currency: form["currency"],
          diff: diff, form: form, base: base
        ).render(into: &html)
      }
      return ConsolePage.response(document)
    } catch let error as MetricsError {
      return message("Revenue", "\(error.message) (\(error.code)).", status: .badRequest)
    }
  }

  /// What is behind one bucket of the revenue page: its dated entries and the purchases in
  /// force at its end, each linked to the customer that holds it.
  private func revenueBucket(_ form: [String: String]) async throws -> Response {
    guard let start = form["start"].flatMap(Int64.init), let end = form["end"].flatMap(Int64.init),
      end > start, let environment = form["environment"], let currency = form["currency"]
    else {
      return message(
        "Revenue", "Open a bucket from the revenue page's charts or table.", status: .badRequest)
    }
    let (from, to) = (Timestamp(milliseconds: start), Timestamp(milliseconds: end))
    let instant = Timestamp(milliseconds: end - 1)
    let now = Timestamp(Date())
    var entries: [RevenueEntry] = []
    var inForce: [RevenueSegment] = []
    let limit = 1000
    let metrics = LedgerMetrics(ledger: ledger)
    try await RevenueProjector(ledger: ledger, logger: ledger.storage.logger).catchUp()
    try await metrics.forEachRevenuePage(after: .beginning) { page in
      for timeline in page.flatMap(\.timelines) {
        for entry in timeline.entries
        where entry.date >= from && entry.date < to && entry.date <= now
          && entry.attributes.environment == environment && entry.attributes.currency == currency
          && entries.count < limit
        {
          entries.append(entry)
        }
        for segment in timeline.segments
        where segment.holds(instant) && segment.attributes.environment == environment
          && segment.attributes.currency == currency && inForce.count < limit
        {
          inForce.append(segment)
        }
      }
    }
    entries.sort { ($0.date, $0.transactionId) < ($1.date, $1.transactionId) }
    let title =
      "Revenue, \(MetricsCalendar.dateText(from)) to \(MetricsCalendar.dateText(to)) "
      + "(\(environment), \(currency))"
    let document = page.document(title: title) { html in
      html.element("p") { html in
        html.element("a", ["href": "\(base)/revenue"], text: "Back to revenue")
      }
      html.element("h2", text: "What happened in it")
      html.table(
        caption: entries.count == limit ? "The first \(limit)" : nil,
        headers: [
          "When", "What", "Amount", "Proceeds (est.)", "Product", "Transaction", "Purchase",
        ],
        rows: entries, id: "bucket-entries"
      ) { html, entry in
        html.cell(entry.date.date.formatted(.iso8601))
        html.cell(entry.kind.rawValue.replacingOccurrences(of: "_", with: " "))
        html.cell(entry.amount == 0 ? "-" : MetricsFormat.amount(entry.amount))
        html.cell(entry.proceeds == 0 ? "-" : MetricsFormat.amount(entry.proceeds))
        html.cell(entry.attributes.productId ?? "-")
        html.element("td") { html in
          html.element(
            "a", ["href": "\(base)/search?q=\(entry.transactionId)"], text: entry.transactionId)
        }
        html.cell(entry.originalTransactionId)
      }
      html.element("h2", text: "In force at its end")
      html.table(
        caption: inForce.count == limit ? "The first \(limit)" : nil,
        headers: ["Purchase", "Product", "Trial", "Monthly value", "From", "Until"],
        rows: inForce, id: "bucket-in-force"
      ) { html, segment in
        html.element("td") { html in
          html.element(
            "a", ["href": "\(base)/search?q=\(segment.originalTransactionId)"],
            text: segment.originalTransactionId)
        }
        html.cell(segment.attributes.productId ?? "-")
        html.cell(segment.isTrial ? "trial" : "paid")
        html.cell(MetricsFormat.amount(segment.monthlyValue))
        html.cell(MetricsCalendar.dateText(segment.start))
        html.cell(MetricsCalendar.dateText(segment.end))
      }
    }
    return ConsolePage.response(document)
  }
}
