import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The account page's history: its changes as the feed holds them, and its events with the
/// evidence of each.
extension AccountPage {
  func changeFeed(into html: inout HTML, page: ConsolePage) {
    guard
      section(
        &html, "changes", "Changes told to the backend", empty: changesTotal == 0,
        "No change derived for this account yet.")
    else { return }
    html.table(
      caption: "The account's change feed, newest first (\(Self.count(changesTotal)) in all)",
      headers: [
        "Position", "Took effect (UTC)", "Recorded (UTC)", "Change", "About", "Old → new",
        "Delivered",
      ],
      rows: changes
    ) { html, change in
      html.cell(Self.count(change.position))
      html.cell(change.effectiveAt.map(Self.instant) ?? "—")
      html.cell(Self.instant(Timestamp(change.recordedAt)))
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
    let (old, new) = (value(change.old, of: change.kind), value(change.new, of: change.kind))
    switch (old, new) {
    case (nil, nil): return "—"
    case (let old?, nil): return "\(old) → —"
    case (nil, let new?): return "— → \(new)"
    case (let old?, let new?): return "\(old) → \(new)"
    }
  }

  /// A change's old or new value as people read it: an instant as a UTC date and time.
  static func value(_ text: String?, of kind: AccountChange.Kind) -> String? {
    guard kind.valuesAreInstants, let text, let milliseconds = Int64(text) else { return text }
    return instant(Timestamp(milliseconds: milliseconds))
  }

  /// The account's events by when they happened (Apple's signature, or the backend's time
  /// for its commands), newest first, a page at a time; claims and signature open on demand.
  func eventList(into html: inout HTML, deciding: Set<String>, page: ConsolePage) {
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

  static func product(of body: LedgerEvent.Body?) -> String? {
    guard let body else { return nil }
    if case .debit(let debit) = body { return debit.productId }
    return body.transactionFacts?.productId ?? body.renewalFacts?.productId
  }

  /// Links to the newer and older pages of a list, keeping the moment and the other list's page.
  func pager(
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
}
