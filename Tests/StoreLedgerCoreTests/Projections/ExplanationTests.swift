import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Given events, when an entitlement is explained at a moment, then the sentence, the rule
/// and exactly the deciding events signed by then.
@Suite struct ExplanationTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-000000000001"
  static let catalog = ProductCatalog(products: [
    "pro.monthly": .init(entitlements: ["pro"]),
    "gems.100": .init(entitlements: ["gems"], type: .consumable, units: 100),
    "lifetime": .init(entitlements: ["lifetime"]),
  ])

  /// The demo's finding: a balance explained in June cited a REFUND signed in December. It
  /// cites the purchases and uses that make it up, and no refund yet.
  @Test func aBalanceCitesItsPurchasesAndUsesAndNoLaterRefund() {
    let first = F.transaction("1", product: "gems.100", type: .consumable, purchased: 1)
    let second = F.transaction("2", product: "gems.100", type: .consumable, purchased: 3)
    var refunded = second
    refunded.revocationDate = F.t(200)
    refunded.revocationReason = .other
    refunded.signedDate = F.t(200)
    let events = [
      F.notification(.oneTimeCharge, signed: 1, transaction: first),
      F.notification(.oneTimeCharge, signed: 3, transaction: second),
      F.debit("d1", product: "gems.100", quantity: 30, at: 4),
      F.notification(.refund, signed: 200, transaction: refunded),
    ]
    let explainer = AccountExplainer(events: events, catalog: Self.catalog)

    let june = explainer.explain(entitlement: "gems", for: Self.token, at: F.t(150))

    #expect(june.answer == "active")
    #expect(
      june.sentence
        == "gems is active: 170 gems.100 left: 200 bought in 2 purchases, 0 refunded, 30 used in 1 use"
    )
    #expect(june.allEvents.allSatisfy { ($0.signedDate ?? F.t(999)) <= F.t(150) })
    #expect(Set(june.events.map(\.key)) == Set([events[0].key, events[1].key, events[2].key]))
    let after = explainer.explain(entitlement: "gems", for: Self.token, at: F.t(201))
    #expect(after.events.contains { $0.notification == "REFUND" })
    #expect(after.sentence.contains("100 refunded"))
  }

  /// Billing retry in words a support agent can repeat, citing the failed renewal.
  @Test func billingRetryIsSaidInPlainWords() {
    let bought = F.transaction("10", purchased: 0, expires: 30)
    let events = [
      F.notification(
        .subscribed, .initialBuy, signed: 0, transaction: bought,
        renewal: F.renewal("10", signed: 0)),
      F.notification(
        .didFailToRenew, signed: 30, transaction: bought,
        renewal: F.renewal("10", signed: 30, retry: true)),
      F.notification(.refundDeclined, signed: 90, transaction: bought),
    ]
    let explainer = AccountExplainer(events: events, catalog: Self.catalog)

    let why = explainer.explain(entitlement: "pro", for: Self.token, at: F.t(45))

    #expect(why.answer == "inactive")
    #expect(
      why.sentence
        == "pro is not active: Apple could not charge the customer for pro.monthly since \(Self.day(30)); Apple retries until \(Self.day(90)); access resumes if a payment succeeds"
    )
    #expect(why.rule.hasPrefix("E1"))
    #expect(why.because.first?.rule.hasPrefix("S4") == true)
    #expect(why.events.contains { $0.notification == "DID_FAIL_TO_RENEW" })
    #expect(!why.allEvents.contains { $0.notification == "REFUND_DECLINED" })
  }

  /// An entitlement of the catalog nothing granted is answered "never held", citing nothing.
  @Test func everyCatalogEntitlementIsExplainedNeverHeldIncluded() {
    let events = [
      F.notification(
        .oneTimeCharge, signed: 1,
        transaction: F.transaction("20", product: "lifetime", type: .nonConsumable, purchased: 1))
    ]
    let all = AccountExplainer(events: events, catalog: Self.catalog).explainAll(
      for: Self.token, at: F.t(2))
    #expect(all.map(\.subject) == ["entitlement gems", "entitlement lifetime", "entitlement pro"])
    #expect(all.map(\.answer) == ["never held", "active", "never held"])
    #expect(all[0].events.isEmpty && all[0].rule.hasPrefix("E0"))
  }

  /// A period only a history fetched later shows: the answer rests on data Apple signed after
  /// the moment, so the explanation sets it apart and says so.
  @Test func dataSignedLaterIsSetApartAndSaid() {
    let renewed = F.transaction("31", original: "30", purchased: 30, expires: 60, signed: 100)
    let events = [
      F.notification(
        .subscribed, .initialBuy, signed: 0,
        transaction: F.transaction("30", purchased: 0, expires: 30)),
      F.observed(renewed),
    ]
    let why = AccountExplainer(events: events, catalog: Self.catalog).explain(
      entitlement: "pro", for: Self.token, at: F.t(40))
    #expect(why.answer == "active")
    #expect(why.signedLater.map(\.key) == [events[1].key])
    #expect(why.events.allSatisfy { ($0.signedDate ?? F.t(999)) <= F.t(40) })
    #expect(why.sentence.contains("known from data Apple signed later, on \(Self.day(100))"))
  }

  /// As we knew it: under `knownAt`, an event recorded later is neither used nor cited.
  @Test func knownAtLeavesOutWhatWasRecordedLater() {
    let bought = F.transaction("40", purchased: 0, expires: 30)
    let renewed = F.transaction("41", original: "40", purchased: 30, expires: 60)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: bought, recorded: 0),
      F.notification(.didRenew, signed: 30, transaction: renewed, recorded: 35),
    ]
    let explainer = AccountExplainer(events: events, catalog: Self.catalog)
    let then = explainer.explain(entitlement: "pro", for: Self.token, at: F.t(31), knownAt: F.t(32))
    #expect(then.answer == "inactive" && !then.allEvents.contains { $0.key == events[1].key })
    let now = explainer.explain(entitlement: "pro", for: Self.token, at: F.t(31))
    #expect(now.answer == "active" && now.events.contains { $0.key == events[1].key })
  }

  static func day(_ days: Double) -> String {
    String(F.t(days).description.prefix(10))
  }
}
