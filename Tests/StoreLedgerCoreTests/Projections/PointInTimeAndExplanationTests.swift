import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@Suite struct PointInTimeAndExplanationTests {
  typealias F = LedgerFixtures

  /// Bought on day 0; the refund was signed on day 10 but only reached us on day 20.
  var events: [LedgerEvent] {
    [
      F.notification(
        .subscribed, .initialBuy, signed: 0,
        transaction: F.transaction("1000", purchased: 0, expires: 30), recorded: 0),
      F.notification(
        .refund, signed: 10,
        transaction: F.transaction("1000", purchased: 0, expires: 30, signed: 10, revoked: 10),
        recorded: 20),
    ]
  }

  func status(_ knowledge: Knowledge, at day: Double) -> Int32? {
    LedgerView(LedgerState.fold(events, knowing: knowledge)).subscription("1000", at: F.t(day))?
      .status
  }

  @Test func appleKnewTheRefundBeforeWeDid() {
    #expect(status(.appleKnew(at: F.t(15)), at: 15) == 5)
    #expect(status(.weKnew(at: F.t(15)), at: 15) == 1)
    #expect(status(.weKnew(at: F.t(20)), at: 20) == 5)
    #expect(status(.everything, at: 15) == 5)
    #expect(status(.appleKnew(at: F.t(-1)), at: -1) == nil)
  }

  @Test func statusExplanationNamesTheRuleAndTheDecidingEvents() throws {
    let view = LedgerView(LedgerState.fold(events))
    let explanation = try #require(view.explainSubscription("1000", at: F.t(15)))
    #expect(explanation.rule.hasPrefix("S1"))
    #expect(explanation.answer.hasPrefix("status 5 (revoked)"))
    #expect(explanation.events.map(\.notification) == ["REFUND"])
    #expect(explanation.events.first?.transactionId == "1000")
    let before = try #require(view.explainSubscription("1000", at: F.t(5)))
    #expect(before.rule.hasPrefix("S2"))
  }

  @Test func activeSubscriptionExpiresExactlyAtExpiresDate() {
    let view = LedgerView(
      LedgerState.fold([F.observed(F.transaction("1000", purchased: 0, expires: 30))]))
    let expiry = F.t(30).milliseconds
    for offset: Int64 in [-86_400_000, -1] {
      #expect(view.subscription("1000", at: Timestamp(milliseconds: expiry + offset))?.status == 1)
    }
    for offset: Int64 in [0, 1, 86_400_000] {
      #expect(view.subscription("1000", at: Timestamp(milliseconds: expiry + offset))?.status == 2)
    }
  }
}
