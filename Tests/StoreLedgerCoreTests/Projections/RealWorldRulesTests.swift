import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Rules real App Store data forces (issue 20), beside their golden scenarios in projections/.
@Suite struct RealWorldRulesTests {
  typealias F = LedgerFixtures

  // MARK: Observations Apple signs anew

  /// Given the log's snapshots of one transaction, when the same facts come back signed later,
  /// then only a repeat of the newest one is a repeat: A, B, then A again ends on A.
  static func claims(_ transaction: JWSTransactionDecodedPayload) -> AppleClaims {
    .transaction(SignedTransactionClaims(transaction: transaction))
  }

  @Test func aFetchedSnapshotRepeatsOnlyTheNewestOne() {
    let a = F.transaction("7000", purchased: 0, expires: 30, signed: 1)
    var b = F.transaction("7000", purchased: 0, expires: 30, signed: 2)
    b.revocationDate = F.t(2)
    let log: [AppleClaims?] = [Self.claims(a), Self.claims(b)]
    let newest = NewestObservations(log)
    var aAgain = a
    aAgain.signedDate = F.t(3)
    #expect(newest.repeated(aAgain) == nil, "A after B is news: the newest says B")
    var bAgain = b
    bAgain.signedDate = F.t(4)
    #expect(newest.repeated(bAgain) == 1)
    let afterA = NewestObservations(log + [Self.claims(aAgain)])
    var aThird = a
    aThird.signedDate = F.t(5)
    #expect(afterA.repeated(aThird) == 2)
    #expect(afterA.repeated(b) == nil, "an older snapshot is never a repeat of a newer one")
  }

  @Test func aRenewalInfoSignedAgainIsARepeatWhileItsFactsStay() {
    let renewal = F.renewal("7100", signed: 10)
    let log: [AppleClaims?] = [
      nil,
      .notification(
        NotificationClaims(
          notification: ResponseBodyV2DecodedPayload(),
          transaction: F.transaction("7100", purchased: 10, expires: 40), renewalInfo: renewal)),
    ]
    var later = renewal
    later.signedDate = F.t(20)
    #expect(NewestObservations(log).repeated(later) == 1)
    later.autoRenewStatus = .off
    #expect(NewestObservations(log).repeated(later) == nil)
  }

  // MARK: Account tokens

  @Test func accountTokensAreCanonicalLowerCaseUUIDs() {
    let upper = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
    #expect(AppAccountToken.canonical(upper) == upper.lowercased())
    #expect(AppAccountToken.canonical(upper.lowercased()) == upper.lowercased())
    for invalid in ["acct-1", "", "7e3fb20b4cdb47cc936d99d65f608138", upper + " ", "{\(upper)}"] {
      #expect(AppAccountToken.canonical(invalid) == nil, "\(invalid)")
    }
    #expect(AppAccountToken.normalized(upper) == upper.lowercased())
    #expect(AppAccountToken.normalized("not-a-uuid") == "not-a-uuid")
  }

  /// Given a purchase Apple signed for the lower-case token and a debit and a link made with
  /// the upper-case one, then one account holds all of them.
  @Test func oneCustomerWhateverTheCaseOfTheirToken() {
    let lower = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    let upper = lower.uppercased()
    let gems = F.transaction(
      "7200", product: "gems.100", type: .consumable, purchased: 1, token: lower, group: nil)
    let unsigned = F.transaction("7300", purchased: 0, expires: 30, token: nil)
    let events = [
      F.observed(gems), F.debit("d-1", token: upper, product: "gems.100", quantity: 1, at: 2),
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: unsigned),
      F.link("7300", to: upper, at: 1),
    ]
    let view = LedgerView(LedgerState.fold(events))
    let accounts = Set(view.snapshot(at: F.t(5)).entitlements.map(\.appAccountToken))
    #expect(accounts == [lower])
    #expect(view.consumables(at: F.t(5)).map(\.balance) == [0])
  }

  // MARK: Billing retry

  @Test func billingRetryEndsSixtyDaysAfterTheLapse() {
    let period = F.transaction("7400", purchased: 0, expires: 30)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: period),
      F.notification(
        .didFailToRenew, signed: 30, transaction: period,
        renewal: F.renewal("7400", signed: 30, retry: true), status: .billingRetry),
    ]
    let view = LedgerView(
      LedgerState.fold(events), options: ProjectionOptions(billingRetryIsEntitled: true))
    #expect(view.subscription("7400", at: F.t(89.9))?.status == 3)
    #expect(view.subscription("7400", at: F.t(89.9))?.entitled == true)
    #expect(view.subscription("7400", at: F.t(90))?.status == 2)
    #expect(view.subscription("7400", at: F.t(400))?.entitled == false)
  }

  // MARK: Apple's signed status

  /// The REFUND of the older period, with the renewal lost: Apple's status decides, the
  /// explanation says so, and the renewal arriving later takes over.
  @Test func applesStatusDecidesWhereTheLogExplainsNothing() {
    let first = F.transaction("7500", purchased: 0, expires: 30)
    let refunded = F.transaction("7500", purchased: 0, expires: 30, signed: 40, revoked: 40)
    var renewal = F.renewal("7500", signed: 40)
    renewal.renewalDate = F.t(60)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: first),
      F.notification(.refund, signed: 40, transaction: refunded, renewal: renewal, status: .active),
    ]
    let view = LedgerView(LedgerState.fold(events))
    #expect(view.subscription("7500", at: F.t(35))?.status == 2, "before Apple spoke: the log")
    #expect(view.subscription("7500", at: F.t(45))?.status == 1)
    #expect(view.subscription("7500", at: F.t(45))?.rule == "S0")
    let explanation = view.explainSubscription("7500", at: F.t(45))
    #expect(explanation?.answer.contains("as the App Store reported at 2026-02-10") == true)
    #expect(view.subscription("7500", at: F.t(60))?.status == 5, "evidence ran out")
    let renewed = F.transaction("7501", original: "7500", purchased: 30, expires: 60, signed: 50)
    let fuller = LedgerView(LedgerState.fold(events + [F.observed(renewed)]))
    #expect(fuller.subscription("7500", at: F.t(45))?.rule == "S2")
    #expect(fuller.subscription("7500", at: F.t(45))?.transactionId == "7501")
  }

  /// Given the renewal and the failure lost, when a REFUND of the older period arrives
  /// signed with grace (4) or billing retry (3) and a renewalDate before the report, then
  /// Apple's word lasts until the end its own fields give, the explanation names that end,
  /// never a day before the report, and after it the log decides again.
  @Test func applesGraceAndRetryReportsRunOutWhenAppleSaysTheyDo() {
    let first = F.transaction("7600", purchased: 0, expires: 30)
    let refunded = F.transaction("7600", purchased: 0, expires: 30, signed: 62, revoked: 62)
    func report(_ status: SubscriptionStatus, grace: Double?) -> LedgerView {
      var renewal = F.renewal("7600", signed: 62)
      renewal.isInBillingRetryPeriod = true
      renewal.renewalDate = F.t(60)
      renewal.gracePeriodExpiresDate = grace.map(F.t)
      return LedgerView(
        LedgerState.fold([
          F.notification(.subscribed, .initialBuy, signed: 0, transaction: first),
          F.notification(
            .refund, signed: 62, transaction: refunded, renewal: renewal, status: status),
        ]))
    }
    let grace = report(.billingGracePeriod, grace: 76)
    #expect(grace.subscription("7600", at: F.t(70))?.status == 4)
    #expect(grace.subscription("7600", at: F.t(70))?.rule == "S0")
    let why = grace.explainSubscription("7600", at: F.t(70))
    // Day 76 is 2026-03-18; the report was signed on day 62 (2026-03-04).
    #expect(why?.sentence.contains("stands until 2026-03-18") == true, "\(why?.sentence ?? "")")
    #expect(grace.subscription("7600", at: F.t(76))?.status == 5, "grace ran out: the log")
    #expect(grace.subscription("7600", at: F.t(400))?.entitled == false)
    // A grace report without its date lasts no longer than retry could (day 120).
    let undated = report(.billingGracePeriod, grace: nil)
    #expect(undated.subscription("7600", at: F.t(119))?.status == 4)
    #expect(undated.subscription("7600", at: F.t(120))?.status == 5)
    let retry = report(.billingRetry, grace: nil)
    #expect(retry.subscription("7600", at: F.t(119))?.status == 3)
    #expect(
      retry.explainSubscription("7600", at: F.t(119))?.sentence.contains("until 2026-05-01") == true
    )
    #expect(retry.subscription("7600", at: F.t(120))?.status == 5)
    // An active report whose renewalDate lies before it says nothing after it was signed.
    let stale = report(.active, grace: nil)
    #expect(stale.subscription("7600", at: F.t(62))?.rule == "S1")
    #expect(stale.subscription("7600", at: F.t(62))?.status == 5)
  }

  // MARK: Catalog

  @Test func aNonRenewingProductWithoutDurationIsRefusedWhenTheCatalogLoads() throws {
    let json =
      #"{"products":{"pass":{"entitlements":["pass"],"type":"Non-Renewing Subscription"}}}"#
    #expect {
      try JSONDecoder().decode(ProductCatalog.self, from: Data(json.utf8))
    } throws: { error in
      let refused = error as? ProductCatalog.ValidationError
      return refused?.code == "invalid_catalog" && refused?.productId == "pass"
        && refused?.description.contains("durationDays") == true
    }
    let valid =
      #"{"products":{"pass":{"type":"Non-Renewing Subscription","durationDays":30},"tip":{"entitlements":[]}}}"#
    let catalog = try JSONDecoder().decode(ProductCatalog.self, from: Data(valid.utf8))
    #expect(catalog.entitlements(of: "tip") == [])
    #expect(catalog.entitlements(of: "pass") == ["pass"])
    #expect(catalog.entitlements(of: "unlisted") == ["unlisted"])
  }
}
