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
