import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// Everything the console shows of one account at one moment, and its rendering.
struct AccountPage {
  let token: String
  let time: Timestamp
  let now: Timestamp
  let view: LedgerView
  /// Explains the page's moment from the events signed by then.
  let explainer: AccountExplainer
  let snapshot: LedgerSnapshot
  let events: [StoredEvent]
  let requests: [ConsumptionRequestReport]
  /// One page of the account's changes, newest first.
  let changes: [ChangeRecord]
  /// How many changes the account has in all.
  let changesTotal: Int
  /// The pages shown (from 0, newest first) of the events and of the changes.
  let eventsPage: Int
  let changesPage: Int
  static let pageSize = 50
  /// Each change's deliveries to the change webhooks, by position.
  let deliveries: [Int64: [ChangeDelivery]]

  /// Every entitlement of the catalog (and any other the account held), explained at the
  /// page's moment.
  var entitlementExplanations: [Explanation] { explainer.explainAll(for: token, at: time) }

  /// The explanation of each subscription at the page's moment, by `originalTransactionId`.
  var subscriptionExplanations: [String: Explanation] {
    var explained: [String: Explanation] = [:]
    for subscription in snapshot.subscriptions {
      explained[subscription.originalTransactionId] = explainer.explainSubscription(
        subscription.originalTransactionId, at: time)
    }
    return explained
  }

  func render(into html: inout HTML, page: ConsolePage) {
    let entitled = entitlementExplanations
    let statuses = subscriptionExplanations
    let deciding = Set((entitled + statuses.values).flatMap(Self.keys))
    picker(into: &html, page: page)
    entitlements(into: &html, explained: entitled)
    subscriptions(into: &html, explained: statuses)
    purchases(into: &html)
    balances(into: &html)
    revocations(into: &html)
    refundRequests(into: &html)
    changeFeed(into: &html, page: page)
    eventList(into: &html, deciding: deciding, page: page)
  }

  private static func keys(_ explanation: Explanation) -> [String] {
    (explanation.events + explanation.signedLater).compactMap(\.key)
      + explanation.because.flatMap(keys)
  }

  private func picker(into html: inout HTML, page: ConsolePage) {
    html.element("p") { html in
      html.text("Account ")
      html.element("code", ["id": "account-token"], text: token)
      html.text(time == now ? ", now (\(Self.instant(time)))." : ", as of \(Self.instant(time)).")
    }
    html.element("form", ["method": "get", "action": "\(page.base)/accounts/\(token)"]) { html in
      html.element("label", ["for": "at"], text: "Show the account at (UTC) ")
      html.void(
        "input",
        [
          "id": "at", "name": "at", "type": "datetime-local", "step": "1",
          "value": String(Self.instant(time).dropLast()),
        ])
      html.text(" ")
      html.element("button", ["type": "submit"], text: "Show")
      html.text(" ")
      html.element("a", ["href": "\(page.base)/accounts/\(token)"], text: "now")
    }
  }

  private func entitlements(into html: inout HTML, explained: [Explanation]) {
    guard
      section(
        &html, "entitlements", "Entitlements", empty: explained.isEmpty,
        "The catalog names no entitlement and the account held none by this moment.")
    else { return }
    let views = Dictionary(
      snapshot.entitlements.map { ($0.entitlement, $0) }, uniquingKeysWith: { first, _ in first })
    html.table(
      caption: "Every entitlement of the catalog, and why",
      headers: ["Entitlement", "In force", "Until", "Environment", "Why"],
      rows: explained
    ) { html, explanation in
      let name = String(explanation.subject.dropFirst("entitlement ".count))
      let entitlement = views[name]
      html.cell(name)
      html.element("td") { html in
        if let entitlement {
          yesNo(&html, entitlement.active)
        } else {
          html.element("span", ["class": "never"], text: "never held")
        }
      }
      html.cell(
        entitlement.map { $0.expiresDate.map(Self.instant) ?? ($0.active ? "no end" : "—") } ?? "—")
      html.cell(entitlement?.environment ?? "—")
      html.element("td") { html in Self.explanation(explanation, into: &html) }
    }
  }

  private func subscriptions(into html: inout HTML, explained: [String: Explanation]) {
    guard
      section(
        &html, "subscriptions", "Subscriptions", empty: snapshot.subscriptions.isEmpty,
        "No subscription at this moment.")
    else { return }
    SubscriptionTimeline.legend(into: &html)
    for (index, subscription) in snapshot.subscriptions.enumerated() {
      let name = SubscriptionTimeline.names[subscription.status] ?? "status \(subscription.status)"
      html.element(
        "h3",
        text: "Subscription \(subscription.originalTransactionId): \(name) (\(subscription.status))"
      )
      html.element("p") { html in
        html.text(
          "\(subscription.productId ?? "unknown product"), group \(subscription.subscriptionGroupIdentifier ?? "—"), "
            + "\(subscription.environment ?? "environment unknown"); "
            + "period ends \(subscription.expiresDate.map(Self.instant) ?? "—"), "
            + "auto-renew \(subscription.autoRenewStatus.map { $0 == 1 ? "on" : "off" } ?? "unknown")"
            + (subscription.price.map { ", paid \(Self.money($0, subscription.currency))" } ?? "")
            + (subscription.gracePeriodExpiresDate.map { ", grace until \(Self.instant($0))" } ?? "")
            + ".")
      }
      timeline(of: subscription.originalTransactionId, index: index).svg(into: &html)
      if let explanation = explained[subscription.originalTransactionId] {
        html.element("details") { html in
          html.element("summary", text: "Why status \(subscription.status)")
          Self.explanation(explanation, into: &html)
        }
      }
    }
  }

  func timeline(of chain: String, index: Int) -> SubscriptionTimeline {
    let records = view.state.transactions.values.filter {
      $0.facts.originalTransactionId == chain
    }
    let start =
      records.compactMap(\.facts.purchaseDate).min() ?? Timestamp(milliseconds: time.milliseconds)
    let lastEnd = records.compactMap(\.facts.expiresDate).max() ?? time
    let end = Timestamp(
      milliseconds: max(
        max(time.milliseconds, lastEnd.milliseconds), start.milliseconds + 86_400_000)
        + 86_400_000)
    let periods = records.sorted {
      ($0.facts.purchaseDate?.milliseconds ?? 0) < ($1.facts.purchaseDate?.milliseconds ?? 0)
    }
    .compactMap { record -> (Timestamp, Timestamp?, String)? in
      guard let from = record.facts.purchaseDate else { return nil }
      return (
        from, record.facts.expiresDate,
        "Transaction \(record.facts.transactionId), \(record.facts.productId ?? "?"): "
          + "\(Self.instant(from)) to \(record.facts.expiresDate.map(Self.instant) ?? "no end")"
      )
    }
    let endWithNow = Timestamp(milliseconds: max(end.milliseconds, now.milliseconds + 86_400_000))
    return SubscriptionTimeline(
      id: index, originalTransactionId: chain,
      bands: SubscriptionTimeline.bands(of: chain, in: view, from: start, to: endWithNow),
      periods: periods, marks: marks(of: chain, records: records), start: start, end: endWithNow,
      moment: time, now: now)
  }

  private func marks(of chain: String, records: [TransactionRecord]) -> [SubscriptionTimeline.Mark]
  {
    var marks: [SubscriptionTimeline.Mark] = events.filter {
      $0.streamId.hasPrefix("sub:") && $0.streamId.hasSuffix(":\(chain)")
    }.map { event in
      let name = Self.name(of: event)
      let kind: SubscriptionTimeline.Mark.Kind =
        name.contains("UPGRADE")
        ? .upgrade : name.hasPrefix("RENEWAL_EXTEN") ? .renewalExtension : .event
      return .init(
        at: Timestamp(event.appleSignedAt ?? event.recordedAt),
        label: "\(name) (\(event.source ?? "unknown source"))", kind: kind)
    }
    for record in records {
      if let revoked = record.facts.revocationDate {
        marks.append(
          .init(at: revoked, label: "Refund of \(record.facts.transactionId)", kind: .refund))
      }
    }
    return marks
  }

  private func purchases(into html: inout HTML) {
    guard
      section(
        &html, "purchases", "Purchases", empty: snapshot.purchases.isEmpty, "No one-time purchase.")
    else { return }
    html.table(
      caption: "One-time purchases",
      headers: ["Transaction", "Product", "Type", "Entitled", "Paid", "Environment"],
      rows: snapshot.purchases
    ) { html, purchase in
      html.cell(purchase.transactionId)
      html.cell(purchase.productId ?? "—")
      html.cell(purchase.type ?? "—")
      html.element("td") { html in yesNo(&html, purchase.entitled) }
      html.cell(purchase.price.map { Self.money($0, purchase.currency) } ?? "—")
      html.cell(purchase.environment ?? "—")
    }
  }

  private func balances(into html: inout HTML) {
    guard
      section(
        &html, "balances", "Consumable balances", empty: snapshot.consumables.isEmpty,
        "No consumable.")
    else { return }
    html.table(
      caption: "Balances",
      headers: ["Product", "Purchased", "Refunded", "Debited", "Balance"],
      rows: snapshot.consumables
    ) { html, balance in
      html.cell(balance.productId)
      html.cell(Self.count(balance.purchased))
      html.cell(Self.count(balance.refunded))
      html.cell(Self.count(balance.debited))
      html.cell(Self.count(balance.balance))
    }
    let debits = events.filter { $0.eventType == ConsumableDebited.eventType }
    guard !debits.isEmpty else { return }
    html.table(
      caption: "Debits", headers: ["Debit", "Product", "Quantity", "At"], rows: debits
    ) { html, event in
      let debit = event.facts?["debit"]
      html.cell(debit?["id"]?.string ?? event.idempotencyKey)
      html.cell(debit?["productId"]?.string ?? "—")
      html.cell(debit?["quantity"]?.number.map { Self.count(Int64($0)) } ?? "—")
      html.cell(Self.instant(Timestamp(event.appleSignedAt ?? event.recordedAt)))
    }
  }

  private func revocations(into html: inout HTML) {
    guard
      section(
        &html, "revocations", "Refunds and revocations", empty: snapshot.revocations.isEmpty,
        "No refund or revocation.")
    else { return }
    html.table(
      caption: "Revocations",
      headers: ["Transaction", "Product", "Type", "Reason", "Share", "Date", "Reversed"],
      rows: snapshot.revocations
    ) { html, revocation in
      html.cell(revocation.transactionId)
      html.cell(revocation.productId ?? "—")
      html.cell(revocation.revocationType ?? "—")
      html.cell(
        revocation.revocationReason.map { $0 == 1 ? "app issue (1)" : "other (\($0))" } ?? "—")
      html.cell(
        revocation.revocationPercentage.map { String(format: "%.1f %%", Double($0) / 1000) } ?? "—")
      html.cell(revocation.revocationDate.map(Self.instant) ?? "—")
      html.cell(revocation.reversed ? "yes" : "no")
    }
  }

  private func refundRequests(into html: inout HTML) {
    guard
      section(
        &html, "refund-requests", "Refund requests", empty: requests.isEmpty,
        "Apple asked about no purchase of this account.")
    else { return }
    html.table(
      caption: "Refund requests (CONSUMPTION_REQUEST) and the answers sent",
      headers: [
        "Request", "Transaction", "State", "Asked", "Answer", "Answered", "Apple's decision",
      ],
      rows: requests
    ) { html, request in
      html.cell(request.requestId)
      html.cell(request.transactionId)
      html.cell(request.state.rawValue + (request.late ? " (late)" : ""))
      html.cell(
        Self.instant(request.requestedAt)
          + (request.requestedAt > time ? " (after this moment)" : ""))
      html.cell(request.answer.map(Self.answer) ?? "—")
      html.cell(request.answeredAt.map(Self.instant) ?? "—")
      // What Apple decided after the page's moment is not shown as known then.
      if let decision = request.appleDecision, (decision.signedDate ?? now) <= time {
        html.cell(decision.notificationType)
      } else {
        html.cell(request.appleDecision == nil ? "—" : "— (decided after this moment)")
      }
    }
  }

  private func changeFeed(into html: inout HTML, page: ConsolePage) {
    guard
      section(
        &html, "changes", "Changes told to the backend", empty: changesTotal == 0,
        "No change derived for this account yet.")
    else { return }
    html.table(
      caption: "The account's change feed, newest first (\(Self.count(changesTotal)) in all)",
      headers: ["Position", "When (UTC)", "Change", "About", "Old → new", "Delivered"],
      rows: changes
    ) { html, change in
      html.cell(Self.count(change.position))
      html.cell(Self.instant(change.occurredAt))
      html.cell(change.change.kind.rawValue)
      html.cell(change.change.subject)
      html.cell(Self.oldToNew(change.change))
      html.cell(Self.delivery(deliveries[change.position] ?? []))
    }
    pager(
      into: &html, page: page, name: "changes", current: changesPage, total: changesTotal,
      anchor: "changes")
  }

  static func oldToNew(_ change: AccountChange) -> String {
    switch (change.old, change.new) {
    case (nil, nil): "—"
    case (let old?, nil): "\(old) → —"
    case (nil, let new?): "— → \(new)"
    case (let old?, let new?): "\(old) → \(new)"
    }
  }

  /// The account's events by when they happened (Apple's signature, or the backend's time
  /// for its commands), newest first, a page at a time; claims and signature open on demand.
  private func eventList(into html: inout HTML, deciding: Set<String>, page: ConsolePage) {
    html.element("h2", ["id": "events"], text: "Events")
    let facts = Dictionary(
      explainer.events.compactMap { event in event.key.map { ($0, event.body) } },
      uniquingKeysWith: { first, _ in first })
    let ordered = events.sorted {
      ($0.appleSignedAt ?? $0.recordedAt, $0.recordedAt, $0.idempotencyKey)
        > ($1.appleSignedAt ?? $1.recordedAt, $1.recordedAt, $1.idempotencyKey)
    }
    let shown = ordered.dropFirst(eventsPage * Self.pageSize).prefix(Self.pageSize)
    let decides = time == now ? "Decides now" : "Decides at this moment"
    html.table(
      caption: "Every event of the account, newest first (\(Self.count(events.count)) in all)",
      headers: [
        "Happened (UTC)", "Event", "Product", "Transaction", "Source", "Stored (UTC)", decides,
        "Evidence",
      ],
      rows: Array(shown)
    ) { html, event in
      let body = facts[event.idempotencyKey]
      let happened = Timestamp(event.appleSignedAt ?? event.recordedAt)
      html.cell(Self.instant(happened) + (happened > time ? " (after this moment)" : ""))
      html.cell(Self.name(of: event))
      html.cell(Self.product(of: body) ?? "—")
      html.cell(body?.transactionFacts?.transactionId ?? "—")
      html.cell(event.source ?? "—")
      html.cell(Self.instant(Timestamp(event.recordedAt)))
      html.cell(deciding.contains(event.idempotencyKey) ? "yes" : "no")
      html.element("td") { html in
        let key =
          event.idempotencyKey.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        html.element(
          "a", ["href": "\(page.base)/accounts/\(token)/evidence?key=\(key)"],
          text: "Claims and signature")
      }
    }
    pager(
      into: &html, page: page, name: "events", current: eventsPage, total: events.count,
      anchor: "events")
  }

  private static func product(of body: LedgerEvent.Body?) -> String? {
    guard let body else { return nil }
    if case .debit(let debit) = body { return debit.productId }
    return body.transactionFacts?.productId ?? body.renewalFacts?.productId
  }

  /// Links to the newer and older pages of a list, keeping the moment and the other list's page.
  private func pager(
    into html: inout HTML, page: ConsolePage, name: String, current: Int, total: Int,
    anchor: String
  ) {
    let pages = max(1, (total + Self.pageSize - 1) / Self.pageSize)
    guard pages > 1 else { return }
    func link(_ target: Int) -> String {
      var query = [
        "events=\(name == "events" ? target : eventsPage)",
        "changes=\(name == "changes" ? target : changesPage)",
      ]
      if time != now { query.insert("at=\(String(Self.instant(time).dropLast()))", at: 0) }
      return "\(page.base)/accounts/\(token)?\(query.joined(separator: "&"))#\(anchor)"
    }
    html.element("p", ["class": "pager"]) { html in
      if current > 0 { html.element("a", ["href": link(current - 1)], text: "← Newer") }
      html.text(" Page \(Self.count(current + 1)) of \(Self.count(pages)) ")
      if current + 1 < pages { html.element("a", ["href": link(current + 1)], text: "Older →") }
    }
  }

  /// The claims StoreLedger read and the JWS as Apple signed it, of one event.
  static func evidence(of event: StoredEvent, into html: inout HTML) {
    html.element(
      "p", text: "Stream \(event.streamId) v\(event.streamVersion), key \(event.idempotencyKey)")
    html.element("pre", text: Self.pretty(event.payload))
    if let signed = event.signed {
      html.element("p", text: "The original JWS, as Apple signed it:")
      html.element("pre", ["class": "jws"], text: signed)
    }
  }

  /// A count with thousands separators: 12,345.
  static func count<Number: BinaryInteger>(_ number: Number) -> String {
    let digits = String(number.magnitude)
    var grouped = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    return (number < 0 ? "-" : "") + grouped
  }

  // MARK: Pieces

  /// The section's heading; when it has nothing to show, `notice` too, and false.
  private func section(
    _ html: inout HTML, _ id: String, _ title: String, empty: Bool, _ notice: String
  ) -> Bool {
    html.element("h2", ["id": id], text: title)
    if empty { html.element("p", text: notice) }
    return !empty
  }

  private func yesNo(_ html: inout HTML, _ value: Bool) {
    html.element("span", ["class": value ? "yes" : "no"], text: value ? "yes" : "no")
  }

  /// The sentence first, for support; the rule, Apple's constants and the events behind a
  /// disclosure, for engineers. Each source's events are listed once, under that source.
  static func explanation(_ explanation: Explanation, into html: inout HTML) {
    html.element("div", ["class": "explanation"]) { html in
      html.element("p", ["class": "sentence"], text: explanation.sentence)
      html.element("details") { html in
        html.element("summary", text: "Rule and events")
        evidence(explanation, into: &html)
      }
    }
  }

  private static func evidence(_ explanation: Explanation, into html: inout HTML) {
    html.element("p") { html in
      html.element("strong", text: "\(explanation.subject): \(explanation.answer)")
      html.element("br")
      html.text("rule \(explanation.rule)")
    }
    if explanation.because.isEmpty {
      let cited =
        explanation.events.map { ($0, "") }
        + explanation.signedLater.map { ($0, " — signed after this moment") }
        + explanation.corroborating.map { ($0, " — the same transaction again") }
      if !cited.isEmpty {
        html.element("ul") { html in
          for (event, note) in cited {
            html.element(
              "li",
              text: "\(event.notification ?? event.eventType) signed "
                + (event.signedDate.map(instant) ?? "unsigned")
                + (event.transactionId.map { ", transaction \($0)" } ?? "") + note)
          }
        }
      }
    }
    for source in explanation.because { evidence(source, into: &html) }
  }

  static func name(of event: StoredEvent) -> String {
    guard case .object(let facts)? = event.facts,
      case .object(let notification)? = facts["notification"]
    else { return event.eventType }
    let type = notification["notificationType"]?.string ?? event.eventType
    return notification["subtype"]?.string.map { "\(type)/\($0)" } ?? type
  }

  static func instant(_ time: Timestamp) -> String { SubscriptionTimeline.instant(time) }

  /// The consumption information sent to Apple, in words.
  static func answer(_ answer: ConsumptionInformation) -> String {
    [
      answer.customerConsented ? "customer consented" : "no consent",
      "delivery \(answer.deliveryStatus.rawValue)",
      answer.consumptionPercentage.map { String(format: "%.1f %% consumed", Double($0) / 1000) },
      answer.sampleContentProvided ? "sample content provided" : nil,
      answer.refundPreference.map { "refund preference \($0.rawValue)" },
    ].compactMap { $0 }.joined(separator: ", ")
  }

  /// What became of a change at each webhook: delivered when, retrying, dead, or waiting.
  static func delivery(_ deliveries: [ChangeDelivery]) -> String {
    guard !deliveries.isEmpty else { return "—" }
    return deliveries.map { delivery in
      let outcome =
        switch delivery.state {
        case "delivered":
          "delivered \(delivery.deliveredAt.map { $0.formatted(.iso8601) } ?? "")"
        case "dead": "dead after \(delivery.attempts) attempts"
        default:
          delivery.attempts == 0
            ? "waiting"
            : "retrying (\(delivery.attempts) attempts"
              + (delivery.lastStatus.map { ", HTTP \($0)" } ?? "") + ")"
        }
      return "\(delivery.endpoint): \(outcome)"
    }.joined(separator: "; ")
  }

  static func money(_ milliunits: Int64, _ currency: String?) -> String {
    String(format: "%.2f", Double(milliunits) / 1000) + " " + (currency ?? "")
  }

  static func pretty(_ value: JSONValue) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? ""
  }
}

extension JSONValue {
  subscript(key: String) -> JSONValue? {
    guard case .object(let object) = self else { return nil }
    return object[key]
  }

  var string: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }

  var number: Double? {
    guard case .number(let value) = self else { return nil }
    return value
  }
}
