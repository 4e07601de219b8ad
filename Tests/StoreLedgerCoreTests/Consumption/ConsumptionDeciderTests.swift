import Foundation
import StoreLedgerCore
import Testing

/// The refund request's decider: given its events, when a command, then the events it adds
/// or why it adds none.
struct ConsumptionDeciderTests {
  static let asked = Timestamp(milliseconds: 1_767_225_600_000)
  static let requested = ConsumptionEvent.Requested(
    requestId: "6a1b", environment: "Sandbox", transactionId: "1001",
    originalTransactionId: "1001", productId: "gems", productType: .consumable,
    appAccountToken: nil, reason: .unintendedPurchase, requestedAt: asked)
  static let answer = ConsumptionInformation(
    customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false,
    consumptionPercentage: 20_000, refundPreference: .grantProrated)

  static func at(_ minutes: Int64) -> Timestamp {
    Timestamp(milliseconds: asked.milliseconds + minutes * 60_000)
  }

  static func claim(_ answer: ConsumptionInformation = answer, source: String = "policy")
    -> ConsumptionCommand
  {
    .claim(answer: answer, reasons: ["r"], source: source, worker: "w", lease: 60_000)
  }

  static func then(_ given: [ConsumptionEvent], _ command: ConsumptionCommand, at minutes: Int64)
    -> Result<[ConsumptionEvent], ConsumptionRejection>
  {
    ConsumptionRequest.fold(given)!.decide(command, now: at(minutes))
  }

  static func events(_ result: Result<[ConsumptionEvent], ConsumptionRejection>)
    -> [ConsumptionEvent]
  {
    (try? result.get()) ?? []
  }

  @Test func aNewRequestIsClaimedWithTheAnswerAndALease() {
    let added = Self.events(Self.then([.requested(Self.requested)], Self.claim(), at: 1))
    guard case .sending(let sending) = added.first else {
      Issue.record("expected a claim")
      return
    }
    #expect(sending.attempt == 1 && sending.answer == Self.answer)
    #expect(sending.leaseUntil == Self.at(2))
    #expect(added.first?.state == .sending && added.first?.dueAt == Self.at(2))
  }

  @Test func aHeldClaimRefusesAnotherAndATakeoverSendsTheRecordedAnswer() throws {
    let given: [ConsumptionEvent] = [
      .requested(Self.requested),
      Self.events(Self.then([.requested(Self.requested)], Self.claim(), at: 1))[0],
    ]
    let other = ConsumptionInformation(
      customerConsented: true, deliveryStatus: .undeliveredOther, sampleContentProvided: false)
    #expect(throws: ConsumptionRejection.self) {
      try Self.then(given, Self.claim(other), at: 1).get()
    }
    let takeover = Self.events(Self.then(given, Self.claim(other), at: 3))
    guard case .sending(let sending) = takeover.first else {
      Issue.record("expected a takeover")
      return
    }
    #expect(sending.attempt == 2 && sending.answer == Self.answer)
  }

  @Test func acceptanceAndFailureConcernOnlyTheAttemptInFlight() {
    let claimed: [ConsumptionEvent] = [
      .requested(Self.requested),
      Self.events(Self.then([.requested(Self.requested)], Self.claim(), at: 1))[0],
    ]
    #expect((try? Self.then(claimed, .recordAccepted(attempt: 2), at: 2).get()) == nil)
    let accepted = Self.events(Self.then(claimed, .recordAccepted(attempt: 1), at: 2))
    guard case .answered(let answered) = accepted.first, accepted.count == 1 else {
      Issue.record("expected an acceptance")
      return
    }
    #expect(answered.attempt == 1 && answered.at == Self.at(2) && !answered.late)
    let retry = Self.events(
      Self.then(
        claimed,
        .recordFailure(
          attempt: 1, code: "api_error", httpStatus: 500, apiErrorCode: 5_000_001,
          retryAt: Self.at(30)), at: 2))
    #expect(retry.first?.state == .pending && retry.first?.dueAt == Self.at(30))
    let refused = Self.events(
      Self.then(
        claimed,
        .recordFailure(
          attempt: 1, code: "api_error", httpStatus: 400, apiErrorCode: 4_000_185, retryAt: nil),
        at: 2))
    #expect(refused.first?.state == .failed && refused.first?.dueAt == nil)
    // A retry that would fall after the deadline closes the request as failed.
    let tooLate = Self.events(
      Self.then(
        claimed,
        .recordFailure(
          attempt: 1, code: "rate_limited", httpStatus: 429, apiErrorCode: 4_290_000,
          retryAt: Self.at(13 * 60)), at: 2))
    #expect(tooLate.first?.state == .failed)
  }

  @Test func pastTheDeadlineAnOpenRequestExpiresAndAClosedOneRefusesEverything() {
    let expired = Self.events(
      Self.then([.requested(Self.requested)], Self.claim(), at: 12 * 60 + 1))
    #expect(expired.first?.state == .expired)
    let closed: [ConsumptionEvent] = [.requested(Self.requested)] + expired
    #expect(throws: ConsumptionRejection.self) {
      try Self.then(closed, Self.claim(source: "operator"), at: 5).get()
    }
    #expect(ConsumptionRequest.fold(closed)?.isDue(at: Self.at(10_000)) == false)
  }

  @Test func eventsRoundTripWithTheirIndexMembers() throws {
    let event = ConsumptionEvent.requested(Self.requested)
    let data = try JSONEncoder().encode(event)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    #expect(object?["state"] as? String == "pending")
    #expect((object?["dueAt"] as? NSNumber)?.int64Value == Self.asked.milliseconds)
    #expect(try JSONDecoder().decode(ConsumptionEvent.self, from: data) == event)
    #expect(Self.requested.deadline == Self.at(12 * 60))
  }
}

/// The policy as a decision table: what the ledger knows → what is sent.
struct ConsumptionPolicyTests {
  static func facts(
    _ type: ProductType, delivered: Bool = true, spent: Int32? = nil, family: Bool = false
  ) -> ConsumptionFacts {
    ConsumptionFacts(
      transactionId: "1", productId: "p", productType: type, delivered: delivered,
      deliveryReason: "why", consumedMilliunits: spent, sampleContentProvided: false,
      earlierRefunds: 0, familyShared: family)
  }

  static let policy = ConsumptionPolicy(
    customerConsented: true, autoRenewable: .grantProrated, nonConsumable: .decline)

  @Test(arguments: [
    (Int32(0), RefundPreference.grantFull), (5_000, .grantFull), (10_000, .grantProrated),
    (50_000, .grantProrated), (50_001, .decline), (100_000, .decline),
  ])
  func consumablesByTheShareSpent(spent: Int32, expected: RefundPreference) {
    let answer = Self.policy.decide(Self.facts(.consumable, spent: spent)).answer
    #expect(answer?.refundPreference == expected)
    #expect(answer?.consumptionPercentage == spent)
    #expect(answer?.violation(for: .consumable) == nil)
  }

  /// Bands that overlap are a policy too: where they overlap, GRANT_FULL wins.
  @Test func overlappingBandsGrantFullWhereTheyOverlap() throws {
    let json =
      #"{"customerConsented": true, "consumables": {"grantFullBelowPercent": 60, "declineAbovePercent": 50}}"#
    let policy = try JSONDecoder().decode(ConsumptionPolicy.self, from: Data(json.utf8))
    for (spent, expected) in [
      (Int32(55_000), RefundPreference.grantFull), (59_999, .grantFull), (60_000, .decline),
    ] {
      #expect(
        policy.decide(Self.facts(.consumable, spent: spent)).answer?.refundPreference == expected)
    }
  }

  @Test func otherTypesUndeliveredFamilyAndConsent() {
    let subscription = Self.policy.decide(Self.facts(.autoRenewableSubscription)).answer
    #expect(subscription?.consumptionPercentage == nil)
    #expect(subscription?.refundPreference == .grantProrated)
    #expect(subscription?.violation(for: .autoRenewableSubscription) == nil)
    #expect(Self.policy.decide(Self.facts(.nonConsumable)).answer?.refundPreference == .decline)
    let undelivered = Self.policy.decide(Self.facts(.consumable, delivered: false, spent: 40_000))
    #expect(undelivered.answer?.deliveryStatus == .undeliveredOther)
    #expect(undelivered.answer?.consumptionPercentage == 0)
    #expect(undelivered.answer?.refundPreference == .grantFull)
    #expect(Self.policy.decide(Self.facts(.consumable, family: true)).skipReason != nil)
    #expect(ConsumptionPolicy().decide(Self.facts(.consumable)).answer == nil)
  }

  @Test func applesRulesForTheBody() {
    var answer = ConsumptionInformation(
      customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: false,
      consumptionPercentage: 10, refundPreference: nil)
    #expect(
      answer.violation(for: .autoRenewableSubscription)
        == .consumptionPercentageAutoRenewableSubscription)
    answer.deliveryStatus = .undeliveredWrongItem
    #expect(answer.violation(for: .consumable) == .undeliveredConsumptionPercentageNonZero)
    answer.consumptionPercentage = 100_001
    answer.deliveryStatus = .delivered
    #expect(answer.violation(for: .consumable) == .consumptionPercentageOutOfRange)
    answer.consumptionPercentage = 0
    answer.refundPreference = .grantProrated
    #expect(answer.violation(for: .consumable) == .consumptionPercentageOutOfRange)
    answer.customerConsented = false
    #expect(answer.violation(for: .consumable) == .invalidCustomerConsented)
  }

  @Test func policyFilesDecodeStrictly() throws {
    let json =
      #"{"customerConsented": true, "consumables": {"declineAbovePercent": 80}, "autoRenewable": null}"#
    let policy = try JSONDecoder().decode(ConsumptionPolicy.self, from: Data(json.utf8))
    #expect(policy.customerConsented && policy.consumables.declineAbovePercent == 80)
    #expect(policy.consumables.grantFullBelowPercent == 10 && policy.undelivered == .grantFull)
    let roundTrip = try JSONDecoder().decode(
      ConsumptionPolicy.self, from: try JSONEncoder().encode(policy))
    #expect(roundTrip == policy)
    for bad in [
      #"{"customerConsent": true}"#, #"{"undelivered": "REFUND"}"#,
      #"{"consumables": {"declineAbovePercent": 101}}"#,
    ] {
      #expect(throws: ConsumptionPolicy.ValidationError.self) {
        try JSONDecoder().decode(ConsumptionPolicy.self, from: Data(bad.utf8))
      }
    }
  }

  /// Consent by source, as a decision table: the policy's source × the customer's recorded
  /// answer in force → sent (with the reason that says which) or skipped (with why).
  @Test(arguments: [
    (ConsumptionPolicy.ConsentSource.none, Bool?.none, nil as String?),
    (.none, true, nil),
    (.recorded, nil, nil),
    (.recorded, true, "recorded by the app"),
    (.recorded, false, nil),
    (.atPurchase, nil, "collected at purchase"),
    (.atPurchase, true, "recorded by the app"),
    (.atPurchase, false, nil),
  ])
  func consentBySourceAndTheCustomersRecordedAnswer(
    source: ConsumptionPolicy.ConsentSource, recorded: Bool?, sentBecause: String?
  ) {
    var facts = Self.facts(.consumable, spent: 0)
    facts.consent = recorded.map {
      RefundConsent(
        appAccountToken: "00000000-0000-4000-8000-000000000001", consented: $0,
        collectedAt: Timestamp(milliseconds: 1_767_225_600_000), method: "settings")
    }
    let decision = ConsumptionPolicy(consent: source).decide(facts)
    if let sentBecause {
      #expect(decision.answer?.customerConsented == true)
      #expect(decision.reasons.first?.contains(sentBecause) == true, "\(decision.reasons)")
    } else {
      #expect(decision.answer == nil)
      let why = decision.skipReason ?? ""
      switch (source, recorded) {
      case (.none, _): #expect(why.contains("does not obtain"))
      case (_, false?): #expect(why.contains("withdrew"))
      default: #expect(why.contains("no consent is recorded"))
      }
    }
  }

  @Test func theConsentSourceIsReadFromEitherFormConsentFirst() throws {
    func policy(_ json: String) throws -> ConsumptionPolicy {
      try JSONDecoder().decode(ConsumptionPolicy.self, from: Data(json.utf8))
    }
    #expect(try policy("{}").consent == .recorded)
    #expect(try policy(#"{"consent": "atPurchase"}"#).consent == .atPurchase)
    #expect(try policy(#"{"customerConsented": true}"#).consent == .atPurchase)
    #expect(
      try policy(#"{"customerConsented": false}"#).consent == ConsumptionPolicy.ConsentSource.none)
    #expect(try policy(#"{"consent": "recorded", "customerConsented": true}"#).consent == .recorded)
    #expect(throws: ConsumptionPolicy.ValidationError.self) {
      try policy(#"{"consent": "always"}"#)
    }
    let encoded = String(decoding: try JSONEncoder().encode(try policy("{}")), as: UTF8.self)
    #expect(encoded.contains(#""consent":"recorded""#))
  }
}
