import AppStoreSimulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The support console in a real headless Chromium, over a ledger the simulator filled through
/// the webhook: a wrong key is refused, sign-in keeps no key in the page or the URL, search
/// finds the customer in any letter case and by a transaction id, the account page shows what
/// the API answers (statuses, each timeline band, the explanation), the overview its numbers,
/// the page works from the keyboard, and sign-out ends the session. Screenshots go to
/// .build/console-screenshots/ for a person to look at.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConsoleBrowserTests {
  typealias H = ServerHarness
  static let screenshots = URL(fileURLWithPath: ".build/console-screenshots")

  @Test func signInSearchTheAccountAtAMomentAndTheOverview() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 30, months: 8, seed: 5))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    try await H.withServer { client, database in
      let base = "http://127.0.0.1:\(try #require(client.port))"
      var logger = Logger(label: "test.console")
      logger.logLevel = .error
      await NotificationDeliverer(
        store: store, webhookURL: "\(base)/v1/notifications/appstore", faults: DeliveryFaults(),
        logger: logger
      ).deliverPending()
      let time = Timestamp(milliseconds: simulation.configuration.end.milliseconds - 43_200_000)
      let (token, subscriptions) = try await Self.busiestCustomer(simulation, client, at: time)
      let stored = try await H.eventCount(database)
      let browser = try HeadlessChromium()

      try await Self.signIn(browser, base: base)
      try await Self.search(browser, base: base, token: token)
      try await Self.accountAt(
        browser, client: client, token: token, time: time, subscriptions: subscriptions)
      try await Self.keyboardAndLabels(browser)
      try await browser.open("\(base)/console")
      let overview = try await browser.text()
      #expect(overview.contains("Subscriptions by status"))
      #expect(overview.contains("Last notification"))
      #expect(
        try await browser.evaluate("document.querySelector('.card strong').textContent") as? String
          == "\(try await Self.accountCount(client, simulation))")
      try await browser.screenshot(to: Self.screenshots.appendingPathComponent("overview.png"))
      try await AccountListEndpointTests.project(database)
      try await Self.lists(browser, base: base, client: client)
      try await Self.revenue(browser, base: base, simulation)
      try await Self.signOut(browser, base: base)
      try await Self.deepLinkSurvivesSignIn(browser, base: base, token: token, time: time)
      try await Self.signOut(browser, base: base)
      #expect(try await H.eventCount(database) == stored, "the console changes nothing")
    }
  }

  /// The customer with the most subscriptions that changed status, and their statuses at `time`.
  static func busiestCustomer(
    _ simulation: Simulation, _ client: some TestClientProtocol, at time: Timestamp
  ) async throws -> (String, [String: Int]) {
    var best: (String, [String: Int], Int)?
    for customer in simulation.truth.customers {
      guard let token = customer.appAccountToken else { continue }
      let answer = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(token)/subscriptions?at=\(time.date.formatted(.iso8601))",
          method: .get, headers: H.authorized))
      var statuses: [String: Int] = [:]
      for subscription in answer["subscriptions"]?.array ?? [] {
        if case .string(let id)? = subscription["originalTransactionId"],
          case .number(let status)? = subscription["status"]
        {
          statuses[id] = Int(status)
        }
      }
      let events = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(token)/events", method: .get, headers: H.authorized))
      let weight = events["events"]?.array?.count ?? 0
      if !statuses.isEmpty, weight > best?.2 ?? 0 { best = (token, statuses, weight) }
    }
    let found = try #require(best)
    return (found.0, found.1)
  }

  static func accountCount(_ client: some TestClientProtocol, _ simulation: Simulation) async throws
    -> Int
  {
    // Every account the log indexes has a view row once projected; count them over the API's
    // own statistics rather than the console's query.
    var count = 0
    for customer in simulation.truth.customers {
      guard let token = customer.appAccountToken else { continue }
      let events = try H.value(
        try await client.execute(
          uri: "/v1/accounts/\(token)/events", method: .get, headers: H.authorized))
      if !(events["events"]?.array?.isEmpty ?? true) { count += 1 }
    }
    return count
  }

  static func signIn(_ browser: HeadlessChromium, base: String) async throws {
    try await browser.open("\(base)/console")
    #expect(try await browser.url().contains("/console/sign-in?next="), "a page needs a session")
    for key in ["sk-wrong-key", H.apiKey] {
      _ = try await browser.evaluate("document.getElementById('key').focus()")
      try await browser.type(key)
      try await browser.press("Enter", code: 13)
      try await browser.waitForLoad()
      let url = try await browser.url()
      #expect(!url.contains(key), "no key in the URL")
      #expect(!(try await browser.html()).contains(key), "no key in the page")
      if key != H.apiKey {
        let text = try await browser.text()
        #expect(text.contains("That key was not accepted"), "\(text)")
        #expect(url.hasSuffix("/console/sign-in"))
      }
    }
    #expect(try await browser.url().hasSuffix("/console"))
    #expect(try await browser.text().contains("Overview"))
    #expect(
      (try await browser.evaluate("document.cookie") as? String)?.contains("storeledger_console")
        == false, "the session cookie is HttpOnly")
  }

  /// From the overview's numbers to their lists: the active subscriptions' number opens the
  /// accounts list with the API's total, a row opens its customer, the filter form narrows
  /// by a typed token start, and "Today" lists the newest changes with links.
  static func lists(_ browser: HeadlessChromium, base: String, client: some TestClientProtocol)
    async throws
  {
    try await browser.open("\(base)/console")
    _ = try await browser.evaluate("document.querySelector('#statuses tbody a').click()")
    try await browser.waitForLoad()
    #expect(try await browser.url().hasSuffix("/console/accounts?status=1"))
    let api = try H.value(
      try await client.execute(uri: "/v1/accounts?status=1", method: .get, headers: H.authorized))
    let total = try #require(api["total"]?.number)
    let shown = try await browser.evaluate(
      "document.querySelector('#list-total strong').textContent")
    #expect(shown as? String == "\(Int(total))")
    try await browser.screenshot(to: Self.screenshots.appendingPathComponent("accounts-list.png"))
    let first = try #require(
      try await browser.evaluate("document.querySelector('#accounts-list tbody a').textContent")
        as? String)
    // The filter form, from the keyboard: the first nine characters of the token, in capitals.
    _ = try await browser.evaluate("document.getElementById('f-search').focus()")
    try await browser.type(String(first.prefix(9)).uppercased())
    try await browser.press("Enter", code: 13)
    try await browser.waitForLoad()
    #expect(try await browser.url().contains("search="))
    let narrowed = try await browser.text()
    #expect(narrowed.contains(first))
    _ = try await browser.evaluate("document.querySelector('#accounts-list tbody a').click()")
    try await browser.waitForLoad()
    #expect(try await browser.url().contains("/console/accounts/"))
    _ = try await browser.evaluate("document.getElementById('today-link').click()")
    try await browser.waitForLoad()
    let today = try await browser.text()
    #expect(today.contains("Changes") && today.contains("Events stored"))
    #expect(
      (try await browser.evaluate("document.querySelectorAll('#today-changes tbody tr').length")
        as? Int ?? 0) > 0)
  }

  static func search(_ browser: HeadlessChromium, base: String, token: String) async throws {
    for query in [token.uppercased(), "no-such-customer-42"] {
      _ = try await browser.evaluate("document.getElementById('q').focus()")
      try await browser.type(query)
      try await browser.press("Enter", code: 13)
      try await browser.waitForLoad()
      if query == token.uppercased() {
        #expect(try await browser.url().hasSuffix("/console/accounts/\(token)"))
        #expect(try await browser.text().contains("Customer \(token)"))
      } else {
        #expect(try await browser.text().contains("Nothing matches"))
      }
    }
  }

  static func accountAt(
    _ browser: HeadlessChromium, client: some TestClientProtocol, token: String, time: Timestamp,
    subscriptions: [String: Int]
  ) async throws {
    try await browser.open(
      "\(try await browser.url().components(separatedBy: "/console/")[0])/console/accounts/\(token)"
    )
    // The date-time picker, as a person uses it.
    let local = String(time.date.formatted(.iso8601).dropLast())
    _ = try await browser.evaluate(
      "const at = document.getElementById('at'); at.value = '\(local)'; at.form.submit()")
    try await browser.waitForLoad()
    let text = try await browser.text()
    #expect(text.contains("as of \(time.date.formatted(.iso8601))"))
    let names = [1: "Active", 2: "Expired", 3: "Billing retry", 4: "Grace period", 5: "Revoked"]
    for (id, status) in subscriptions {
      #expect(text.contains("Subscription \(id): \(names[status] ?? "") (\(status))"), "\(id)")
    }
    // Every band says what the API answers at its middle; neighbours differ.
    let bands =
      try await browser.evaluate(
        "[...document.querySelectorAll('svg.timeline')].map(svg => [...svg.querySelectorAll('rect.band')].map(b => [b.dataset.status, b.dataset.from, b.dataset.until, b.querySelector('title').textContent]))"
      ) as? [[[String]]] ?? []
    #expect(bands.count == subscriptions.count)
    #expect(bands.flatMap { $0 }.count > subscriptions.count, "some subscription changed status")
    for (timeline, id) in zip(bands, subscriptions.keys.sorted()) {
      for (band, next) in zip(timeline, timeline.dropFirst()) { #expect(band[0] != next[0]) }
      for band in timeline {
        let middle = Timestamp(milliseconds: ((Int64(band[1]) ?? 0) + (Int64(band[2]) ?? 0)) / 2)
        let answer = try H.value(
          try await client.execute(
            uri: "/v1/accounts/\(token)/subscriptions?at=\(middle.date.formatted(.iso8601))",
            method: .get, headers: H.authorized))
        let status = answer["subscriptions"]?.array?.first {
          $0["originalTransactionId"] == .string(id)
        }?["status"]
        #expect(status == .number(Double(band[0]) ?? 0), "\(id) at \(middle)")
        #expect(band[3].contains(names[Int(band[0]) ?? 0] ?? "?"), "readable without colour")
      }
    }
    // The explanation is explain's: the sentence and rule the API gives for each entitlement.
    let all = try await browser.evaluate("document.body.textContent") as? String ?? ""
    let entitlements = try H.value(
      try await client.execute(
        uri: "/v1/accounts/\(token)/entitlements?at=\(time.date.formatted(.iso8601))",
        method: .get, headers: H.authorized))
    for entitlement in entitlements["entitlements"]?.array ?? [] {
      guard case .string(let name)? = entitlement["entitlement"] else { continue }
      let explained = try H.value(
        try await client.execute(
          uri:
            "/v1/accounts/\(token)/entitlements/\(name)/explanation?at=\(time.date.formatted(.iso8601))",
          method: .get, headers: H.authorized))
      // The sentence shows; the rule waits behind its disclosure.
      if case .string(let sentence)? = explained["sentence"] { #expect(text.contains(sentence)) }
      if case .string(let rule)? = explained["rule"] { #expect(all.contains("rule \(rule)")) }
    }
    #expect(text.contains("Events") && text.contains("Claims and signature"))
    // Every timeline marks the moment asked about, and the present.
    let marked = try await browser.evaluate(
      "[...document.querySelectorAll('svg.timeline')].filter(t => t.querySelector('.marker.moment') && t.querySelector('.marker.now')).length"
    )
    #expect((marked as? Int ?? 0) == subscriptions.count, "\(marked as Any)")
    try await browser.screenshot(to: screenshots.appendingPathComponent("account.png"))
    let svg = try await browser.evaluate("document.querySelector('svg.timeline').outerHTML")
    try Data((svg as? String ?? "").utf8).write(
      to: screenshots.appendingPathComponent("timeline.svg"))
    // The README's picture: the subscriptions with their timelines.
    let top = try await browser.evaluate("document.getElementById('subscriptions').offsetTop - 8")
    try await browser.screenshot(
      to: screenshots.appendingPathComponent("account-timeline.png"), scale: 0.75,
      top: Double(top as? Int ?? 0), height: 420)
  }

  /// The revenue page in a browser: its charts drawn, every point named, every field
  /// labelled, readable text.
  static func revenue(_ browser: HeadlessChromium, base: String, _ simulation: Simulation)
    async throws
  {
    let from = MetricsCalendar.dateText(simulation.configuration.start)
    let to = MetricsCalendar.dateText(simulation.configuration.end)
    try await browser.open("\(base)/console/revenue?from=\(from)&to=\(to)&by=month")
    let text = try await browser.text()
    #expect(text.contains("MRR") && text.contains("Cohorts"))
    let charts = try await browser.evaluate(
      "[...document.querySelectorAll('figure.chart svg')].filter(s => s.getBoundingClientRect().width > 200).length"
    )
    #expect(charts as? Int == 3, "three charts drawn")
    let named = try await browser.evaluate(
      "[...document.querySelectorAll('figure.chart svg a')].filter(a => a.getAttribute('aria-label') && a.querySelector('title')).length"
    )
    #expect((named as? Int ?? 0) > 10, "every point and bar is named")
    let unlabelled = try await browser.evaluate(
      "[...document.querySelectorAll('input:not([type=hidden]), select')].filter(i => !document.querySelector(`label[for=\"${i.id}\"]`)).length"
    )
    #expect(unlabelled as? Int == 0, "every field has a label")
    try await browser.screenshot(to: Self.screenshots.appendingPathComponent("revenue.png"))
  }

  static func keyboardAndLabels(_ browser: HeadlessChromium) async throws {
    let unlabelled = try await browser.evaluate(
      "[...document.querySelectorAll('input')].filter(i => !document.querySelector(`label[for=\"${i.id}\"]`)).length"
    )
    #expect(unlabelled as? Int == 0, "every input has a label")
    _ = try await browser.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    try await browser.press("Tab", code: 9)
    #expect(try await browser.evaluate("document.activeElement.className") as? String == "skip")
    var reached: Set<String> = []
    for _ in 0..<12 {
      try await browser.press("Tab", code: 9)
      if let tag = try await browser.evaluate(
        "document.activeElement.id || document.activeElement.getAttribute('class') || document.activeElement.tagName"
      )
        as? String
      {
        reached.insert(tag)
      }
    }
    #expect(reached.contains("q"), "the search field is reached by Tab: \(reached)")
    // Contrast: text against its background, and white band labels against each status colour,
    // at least 4.5:1 (WCAG AA for normal text).
    let contrast = try await browser.evaluate(
      """
      (() => {
        const rgb = c => (c.match(/[0-9.]+/g) || []).slice(0, 3).map(Number);
        const hex = h => [1, 3, 5].map(i => parseInt(h.slice(i, i + 2), 16));
        const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
          .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
        const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
        const background = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (!c.endsWith(', 0)') && c !== 'transparent') return rgb(c); } return [255, 255, 255]; };
        const texts = [...document.querySelectorAll('p, td, th, a, label, h1, h2, h3, li, button')]
          .map(e => ratio(rgb(getComputedStyle(e).color), background(e)));
        const bands = [...document.querySelectorAll('svg.timeline pattern > rect')]
          .map(r => ratio(hex(r.getAttribute('fill')), [255, 255, 255]));
        return Math.min(...texts, ...bands);
      })()
      """)
    #expect((contrast as? Double ?? 0) >= 4.5, "the lowest contrast on the page")
    let marks = try await browser.evaluate(
      "[...document.querySelectorAll('svg.timeline .mark')].filter(m => m.getAttribute('tabindex') === '0' && m.getAttribute('aria-label')).length"
    )
    #expect((marks as? Int ?? 0) > 0, "the timeline's events are focusable and named")
  }

  static func signOut(_ browser: HeadlessChromium, base: String) async throws {
    _ = try await browser.evaluate(
      "document.querySelector('form[action$=\"/sign-out\"]').submit()")
    try await browser.waitForLoad()
    #expect(try await browser.url().hasSuffix("/console/sign-in"))
    try await browser.open("\(base)/console")
    #expect(try await browser.url().contains("/console/sign-in?next="), "signed out")
  }

  /// A link to a customer at a moment, pasted into a ticket, opened signed out: sign-in, then
  /// the customer at that moment, not the overview.
  static func deepLinkSurvivesSignIn(
    _ browser: HeadlessChromium, base: String, token: String, time: Timestamp
  ) async throws {
    let moment = String(time.date.formatted(.iso8601).dropLast())
    let link = "/console/accounts/\(token)?at=\(moment)"
    try await browser.open(base + link)
    #expect(try await browser.url().contains("/console/sign-in?next="))
    _ = try await browser.evaluate("document.getElementById('key').focus()")
    try await browser.type(H.apiKey)
    try await browser.press("Enter", code: 13)
    try await browser.waitForLoad()
    #expect(try await browser.url() == base + link)
    let text = try await browser.text()
    #expect(text.contains("Account \(token), as of \(time.date.formatted(.iso8601))"))
  }
}
