import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Given events, then consumable balances, one-time purchases and entitlements.
@Suite struct PurchaseAndBalanceTests {
  typealias F = LedgerFixtures

  let catalog = ProductCatalog(products: [
    "gems.100": .init(entitlements: ["gems"], units: 100),
    "pro.monthly": .init(entitlements: ["pro", "sync"]),
    "pass.30d": .init(entitlements: ["pass"], durationDays: 30),
  ])

  func view(_ events: [LedgerEvent]) -> LedgerView {
    LedgerView(LedgerState.fold(events), catalog: catalog)
  }

  func gems(
    _ id: String, quantity: Int32 = 1, purchased: Double = 0, signed: Double? = nil,
    revoked: Double? = nil, type: RevocationType? = nil, percentage: Int32? = nil
  )
    -> JWSTransactionDecodedPayload
  {
    F.transaction(
      id, product: "gems.100", type: .consumable, purchased: purchased, signed: signed,
      quantity: quantity, revoked: revoked, revocationType: type, percentage: percentage)
  }

  @Test func balanceIsPurchasedMinusRefundedMinusDebited() {
    let events = [
      F.notification(.oneTimeCharge, signed: 0, transaction: gems("c1", quantity: 2)),
      F.observed(gems("c2", purchased: 1)),
      F.notification(
        .refund, signed: 3, transaction: gems("c2", purchased: 1, signed: 3, revoked: 3)),
      F.debit("d1", product: "gems.100", quantity: 30, at: 2),
      F.debit("d1", product: "gems.100", quantity: 30, at: 2),
    ]
    let balance = view(events).consumables(at: F.t(5))
    #expect(balance.count == 1)
    #expect(balance.first?.purchased == 300)
    #expect(balance.first?.refunded == 100)
    #expect(balance.first?.debited == 30)
    #expect(balance.first?.balance == 170)
    #expect(view(events).consumables(at: F.t(2.5)).first?.balance == 270)
  }

  @Test func proratedRefundTakesItsShareRoundedUpAndReversalRecredits() {
    let prorated = gems("c1", signed: 3, revoked: 3, type: .refundProrated, percentage: 33_333)
    let refund = F.notification(.refund, signed: 3, transaction: prorated)
    let events = [F.observed(gems("c1")), refund]
    #expect(view(events).consumables(at: F.t(4)).first?.refunded == 34)
    let reversed =
      events + [
        F.notification(.refundReversed, signed: 6, transaction: gems("c1", signed: 6))
      ]
    #expect(view(reversed).consumables(at: F.t(7)).first?.refunded == 0)
    #expect(view(reversed).revocations(at: F.t(7)).first?.reversed == true)
  }

  @Test func debitBeyondTheBalanceIsRecordedNotRejected() {
    let events = [F.observed(gems("c1")), F.debit("d1", product: "gems.100", quantity: 150, at: 1)]
    #expect(view(events).consumables(at: F.t(2)).first?.balance == -50)
    #expect(view(events).entitlements(at: F.t(2)).first?.active == false)
  }

  @Test func nonConsumableGrantsUntilRevokedAndAgainAfterReversal() {
    let lifetime = F.transaction("n1", product: "lifetime", type: .nonConsumable, purchased: 0)
    let refunded = F.transaction(
      "n1", product: "lifetime", type: .nonConsumable, purchased: 0, signed: 5, revoked: 5)
    let events = [
      F.notification(.oneTimeCharge, signed: 0, transaction: lifetime),
      F.notification(.refund, signed: 5, transaction: refunded),
    ]
    #expect(view(events).purchases(at: F.t(4)).first?.entitled == true)
    #expect(view(events).purchases(at: F.t(5)).first?.entitled == false)
    let reversal = F.notification(
      .refundReversed, signed: 9,
      transaction: F.transaction(
        "n1", product: "lifetime", type: .nonConsumable, purchased: 0, signed: 9))
    #expect(view(events + [reversal]).purchases(at: F.t(10)).first?.entitled == true)
    #expect(
      view(events + [reversal]).entitlements(
        for: "00000000-0000-4000-8000-000000000001", at: F.t(10)
      ).map(\.entitlement)
        == ["lifetime"])
  }

  @Test func nonRenewingSubscriptionLastsItsCatalogDuration() {
    let pass = F.transaction(
      "p1", product: "pass.30d", type: .nonRenewingSubscription, purchased: 0)
    let events = [F.observed(pass)]
    let early = view(events).entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(29))
    #expect(early.map(\.active) == [true])
    #expect(early.first?.expiresDate == F.t(30))
    #expect(
      view(events).entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(30)).map(
        \.active) == [false])
    let uncatalogued = LedgerView(LedgerState.fold(events))
    #expect(
      uncatalogued.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(400)).map(
        \.active) == [true])
  }

  @Test func catalogMapsProductsToEntitlementsAndUnknownProductsToThemselves() {
    let pro = F.transaction("1000", purchased: 0, expires: 30)
    let other = F.transaction(
      "1100", product: "other.monthly", purchased: 0, expires: 30, group: "g2")
    let entitlements = view([F.observed(pro), F.observed(other)]).entitlements(at: F.t(1))
    #expect(entitlements.map(\.entitlement) == ["other.monthly", "pro", "sync"])
    #expect(entitlements.allSatisfy { $0.active && $0.source != "" })
  }

  @Test func linkAndForwardedTokenGiveUntokenedPurchasesAnAccount() {
    let untokened = F.transaction("1000", purchased: 0, expires: 30, token: nil)
    let linked = view([
      F.observed(untokened), F.link("1000", to: "00000000-0000-4000-8000-000000000009", at: 1),
    ])
    #expect(
      linked.subscription("1000", at: F.t(2))?.appAccountToken
        == "00000000-0000-4000-8000-000000000009")
    let forwarded = view([
      F.observed(untokened, forwardedToken: "00000000-0000-4000-8000-000000000007")
    ])
    #expect(
      forwarded.subscription("1000", at: F.t(2))?.appAccountToken
        == "00000000-0000-4000-8000-000000000007")
    let signedToken = view([
      F.observed(
        F.transaction(
          "1000", purchased: 0, expires: 30, token: "00000000-0000-4000-8000-000000000001")),
      F.link("1000", to: "00000000-0000-4000-8000-000000000009", at: 1),
    ])
    #expect(
      signedToken.subscription("1000", at: F.t(2))?.appAccountToken
        == "00000000-0000-4000-8000-000000000001")
  }

  @Test func entitlementPrefersTheLongestActiveSource() {
    let pro = F.transaction("1000", purchased: 0, expires: 30)
    let lifetime = F.transaction("n1", product: "pro.lifetime", type: .nonConsumable, purchased: 0)
    let both = LedgerView(
      LedgerState.fold([F.observed(pro), F.observed(lifetime)]),
      catalog: ProductCatalog(products: [
        "pro.monthly": .init(entitlements: ["pro"]), "pro.lifetime": .init(entitlements: ["pro"]),
      ]))
    let pro10 = both.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10))
    #expect(pro10.map(\.source) == ["n1"])
    #expect(pro10.first?.expiresDate == nil)
    let explanation = both.explainEntitlement(
      "pro", for: "00000000-0000-4000-8000-000000000001", at: F.t(10))
    #expect(explanation?.because.count == 2)
    #expect(explanation?.rule.hasPrefix("E2") == true)
  }
}
