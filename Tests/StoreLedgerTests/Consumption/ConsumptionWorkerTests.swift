import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Refund requests end to end on a real database against the simulator: Apple's
/// CONSUMPTION_REQUEST opens a request, the worker answers it from the ledger by the policy,
/// Apple decides, and every step is in the log.
@Suite(.serialized) struct ConsumptionWorkerTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  static let token = F.account(7)
  static let catalog = ProductCatalog(products: [
    "gems": .init(entitlements: ["gems"], units: 10, sampleContentProvided: true)
  ])
  static let policy = ConsumptionPolicy(customerConsented: true, autoRenewable: .grantProrated)

  /// A store at day 10 holding one consumable purchase of two packs (20 units) for the account.
  static func store() -> SimulatedAppStore {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(10))
    store.put(
      F.transaction(
        "1001", product: "gems", type: .consumable, purchased: 8, token: token, quantity: 2),
      customer: "c1")
    return store
  }

  static func worker(
    _ ledger: Ledger, _ client: AppStoreServerAPIClient, _ store: SimulatedAppStore,
    policy: ConsumptionPolicy = policy, lease: Duration = .seconds(60),
    afterSending: (@Sendable (String) async throws -> Void)? = nil
  ) -> ConsumptionWorker {
    ConsumptionWorker(
      ledger: ledger, client: client,
      configuration: ConsumptionWorkerConfiguration(
        policy: policy, lease: lease, initialBackoff: .seconds(60), now: { store.now.date },
        afterSending: afterSending),
      logger: H.logger)
  }

  /// Ingests every notification the store queued after the first `from`.
  @discardableResult
  static func deliver(_ store: SimulatedAppStore, to ledger: Ledger, from: Int) async throws -> Int
  {
    let notifications = store.notifications()
    for notification in notifications.dropFirst(from) {
      _ = try await ledger.ingest(notification: notification.signedPayload)
    }
    return notifications.count
  }

  static func prepare(_ ledger: Ledger, _ store: SimulatedAppStore, debit units: Int64) async throws
    -> String
  {
    _ = try await ledger.ingest(signedTransaction: store.signedTransaction("1001")!)
    if units > 0 {
      _ = try await ledger.debit(
        appAccountToken: token, productId: "gems", quantity: units, idempotencyKey: "d1",
        at: F.t(9).date)
    }
    let uuid = try #require(store.requestRefund(of: "1001"))
    try await deliver(store, to: ledger, from: 0)
    return uuid
  }

  @Test func answersFromTheLedgerByThePolicyAndLinksApplesDecision() async throws {
    let store = Self.store()
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store) { client in
        let uuid = try await Self.prepare(ledger, store, debit: 12)
        // Given a request, when the worker runs, then Apple receives the ledger's answer.
        let pass = await Self.worker(ledger, client, store).runOnce()
        #expect(pass.answered == 1)
        let answers = store.consumptionAnswers()
        #expect(answers.count == 1)
        #expect(
          answers.first?.information
            == ConsumptionInformation(
              customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: true,
              consumptionPercentage: 60_000, refundPreference: .decline))
        let report = try await ConsumptionRequests(ledger: ledger).request(uuid)
        #expect(report.state == .answered)
        #expect(report.late == false)
        #expect(report.reasons.contains { $0.contains("60.0 %") })
        #expect(
          report.events?.map(\.eventType) == [
            EventTypes.refundRequested, EventTypes.refundSending,
            EventTypes.refundAnswered,
          ])
        // Apple's decision arrives as a notification and is linked to the request.
        try await Self.deliver(store, to: ledger, from: 1)
        let decided = try await ConsumptionRequests(ledger: ledger).request("1001")
        let decision = try #require(decided.appleDecision)
        #expect(["REFUND", "REFUND_DECLINED"].contains(decision.notificationType))
        let metrics = try await ConsumptionRequests(ledger: ledger).metrics()
        #expect(metrics.answered == 1 && metrics.answeredInTime == 1 && metrics.pending == 0)
        #expect(metrics.refundedAfterAnswer + metrics.declinedAfterAnswer == 1)
        // Nothing is answered twice, and the same notification again opens nothing.
        #expect(await Self.worker(ledger, client, store).runOnce().acted == 0)
        try await Self.deliver(store, to: ledger, from: 0)
        #expect(try await ConsumptionRequests(ledger: ledger).list().count == 1)
        #expect(store.consumptionAnswers().count == 1)
      }
    }
  }

  @Test func aWorkerStoppedAfterSendingLeavesAClaimThatIsTakenOverWithTheSameAnswer()
    async throws
  {
    struct Crash: Error {}
    let store = Self.store()
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store) { client in
        let uuid = try await Self.prepare(ledger, store, debit: 0)
        let crashing = Self.worker(ledger, client, store) { _ in throw Crash() }
        #expect(await crashing.runOnce().errors == 1)
        #expect(store.consumptionAnswers().count == 1)
        #expect(try await ConsumptionRequests(ledger: ledger).request(uuid).state == .sending)
        // Within the lease nobody takes over.
        #expect(await Self.worker(ledger, client, store).runOnce().acted == 0)
        store.advance(to: Timestamp(milliseconds: store.now.milliseconds + 61_000))
        #expect(await Self.worker(ledger, client, store).runOnce().answered == 1)
        let answers = store.consumptionAnswers()
        #expect(answers.count == 2)
        #expect(answers[0].information == answers[1].information)
        let report = try await ConsumptionRequests(ledger: ledger).request(uuid)
        #expect(report.state == .answered && report.attempts == 2)
        #expect(report.events?.filter { $0.eventType == EventTypes.refundAnswered }.count == 1)
      }
    }
  }

  @Test func concurrentWorkersAnswerEachRequestOnce() async throws {
    let store = Self.store()
    for id in 2...9 {
      store.put(
        F.transaction(
          "100\(id)", product: "gems", type: .consumable, purchased: 8, token: Self.token),
        customer: "c1")
    }
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store) { client in
        for id in 1...9 { store.requestRefund(of: "100\(id)") }
        try await Self.deliver(store, to: ledger, from: 0)
        let workers = (0..<3).map { _ in Self.worker(ledger, client, store) }
        let passes = await withTaskGroup(of: ConsumptionWorker.Pass.self) { group in
          for worker in workers { group.addTask { await worker.runOnce() } }
          return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(passes.map(\.answered).reduce(0, +) == 9)
        #expect(Set(store.consumptionAnswers().map(\.transactionId)).count == 9)
        #expect(store.consumptionAnswers().count == 9)
        #expect(try await ConsumptionRequests(ledger: ledger).metrics().answered == 9)
      }
    }
  }

  @Test func retriesAfterAFailureAndExpiresAtTheDeadline() async throws {
    let store = Self.store()
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store, internalErrors: 1) { client in
        let uuid = try await Self.prepare(ledger, store, debit: 0)
        let worker = Self.worker(ledger, client, store)
        #expect(await worker.runOnce().retrying == 1)
        let failed = try await ConsumptionRequests(ledger: ledger).request(uuid)
        #expect(failed.state == .pending && failed.problem?.contains("500") == true)
        #expect(await worker.runOnce().acted == 0)
        store.advance(to: Timestamp(milliseconds: store.now.milliseconds + 120_000))
        #expect(await worker.runOnce().answered == 1)
        // A second request left alone past its twelve hours expires, nothing sent.
        store.put(
          F.transaction(
            "2001", product: "gems", type: .consumable, purchased: 8, token: Self.token),
          customer: "c1")
        let late = try #require(store.requestRefund(of: "2001"))
        try await Self.deliver(store, to: ledger, from: 1)
        store.advance(to: Timestamp(milliseconds: store.now.milliseconds + 13 * 3_600_000))
        #expect(await worker.runOnce().closed == 1)
        #expect(try await ConsumptionRequests(ledger: ledger).request(late).state == .expired)
        #expect(store.consumptionAnswers().count == 1)
      }
    }
  }

  /// The account's change feed tells of each request about its purchases and of what became of
  /// it (answered, expired), also for a purchase linked to the account after Apple asked; the
  /// log derives exactly the stored changes again.
  @Test func theAccountsChangesTellOfEachRequestAndWhatBecameOfIt() async throws {
    let store = Self.store()
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store) { client in
        let answered = try await Self.prepare(ledger, store, debit: 0)
        let worker = Self.worker(ledger, client, store)
        #expect(await worker.runOnce().answered == 1)
        store.put(
          F.transaction(
            "2001", product: "gems", type: .consumable, purchased: 8, token: Self.token),
          customer: "c1")
        store.put(
          F.transaction("3001", product: "gems", type: .consumable, purchased: 8, token: nil),
          customer: "c2")
        let expired = try #require(store.requestRefund(of: "2001"))
        let unlinked = try #require(store.requestRefund(of: "3001"))
        try await Self.deliver(store, to: ledger, from: 1)
        store.advance(to: Timestamp(milliseconds: store.now.milliseconds + 13 * 3_600_000))
        #expect(await worker.runOnce().closed == 2)
        let projector = AccountProjector(ledger: ledger, logger: H.logger)
        _ = try await projector.catchUp()
        // Nobody held 3001 (another Apple Account's) when Apple asked: the request joins the
        // account with the link.
        _ = try await ledger.link(appAccountToken: Self.token, originalTransactionId: "3001")
        _ = try await projector.catchUp()

        let stored = try await ChangeFeedReader(ledger: ledger).changes(
          limit: 1000, account: Self.token)
        let requests = stored.filter { $0.change.kind.rawValue.hasPrefix("consumption.") }
        #expect(
          requests.map { [$0.change.kind.rawValue, $0.change.subject, $0.change.old ?? ""] } == [
            ["consumption.request_pending", answered, "1001"],
            ["consumption.request_answered", answered, "1001"],
            ["consumption.request_pending", expired, "2001"],
            ["consumption.request_closed", expired, "2001"],
            ["consumption.request_pending", unlinked, "3001"],
            ["consumption.request_closed", unlinked, "3001"],
          ])
        struct Body: Decodable {
          struct Fields: Decodable {
            let requestId: String
            let transactionId: String?
            let deadline: Int64?
            let late: Bool?
            let outcome: String?
          }
          let data: Fields
        }
        let bodies = try requests.map {
          try JSONDecoder().decode(Body.self, from: Data($0.jsonBytes)).data
        }
        #expect(bodies.map(\.requestId) == requests.map(\.change.subject))
        #expect(bodies[0].transactionId == "1001")
        // The deadline in Unix milliseconds, as every instant StoreLedger writes.
        #expect(bodies[0].deadline != nil)
        #expect(bodies[0].deadline == requests[0].change.new.flatMap { Int64($0) })
        #expect(bodies[1].late == false)
        #expect(bodies[3].outcome == "expired")
        let derived = try await ChangeFeedReader(ledger: ledger).derivedFromLog(
          of: Self.token, through: Date())
        #expect(
          stored.map {
            DerivedChange(
              $0.change, occurredAt: $0.occurredAt, effectiveAt: $0.effectiveAt, cause: $0.cause)
          }
            == derived)
      }
    }
  }

  @Test func withoutConsentNothingIsSentAndOperatorsCanAnswerWithTheirOwnChoice() async throws {
    let store = Self.store()
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store) { client in
        let uuid = try await Self.prepare(ledger, store, debit: 0)
        let operatorWorker = Self.worker(ledger, client, store)
        // An answer Apple would refuse is refused here, nothing stored or sent.
        await #expect(throws: LedgerError.self) {
          try await operatorWorker.answer(
            uuid, override: .init(refundPreference: RefundPreference(rawValue: "MAYBE")))
        }
        let answered = try await operatorWorker.answer(
          uuid, override: .init(refundPreference: .decline))
        #expect(answered.state == .answered && answered.answeredBy == "operator")
        #expect(store.consumptionAnswers().last?.information.refundPreference == .decline)
        let again = await #expect(throws: LedgerError.self) {
          try await operatorWorker.answer(uuid)
        }
        #expect(again?.code == .conflict)
        // The dry run of another policy shows what it would have answered; nothing is sent.
        let lines = try await ConsumptionRequests(ledger: ledger).dryRun(
          policy: ConsumptionPolicy(customerConsented: false))
        #expect(lines.count == 1 && lines[0].wouldSend == nil && lines[0].skipReason != nil)
        #expect(store.consumptionAnswers().count == 1)
        // Without consent the worker closes new requests as skipped.
        store.put(
          F.transaction(
            "3001", product: "gems", type: .consumable, purchased: 8, token: Self.token),
          customer: "c1")
        store.requestRefund(of: "3001")
        try await Self.deliver(store, to: ledger, from: 1)
        let silent = Self.worker(ledger, client, store, policy: ConsumptionPolicy())
        #expect(await silent.runOnce().closed == 1)
        #expect(try await ConsumptionRequests(ledger: ledger).request("3001").state == .skipped)
        #expect(store.consumptionAnswers().count == 1)
      }
    }
  }

  /// With the policy's consent `recorded`, only the customer's recorded answer in force when
  /// the request is answered lets anything be sent, and the answer's reasons say so; a
  /// withdrawal recorded later closes the next request as skipped, saying why.
  @Test func onlyARecordedConsentInForceIsSentAndTheAnswerSaysWhich() async throws {
    let store = Self.store()
    let policy = ConsumptionPolicy(consent: .recorded, autoRenewable: .grantProrated)
    try await H.withLedger(catalog: Self.catalog) { ledger, _ in
      try await H.withClient(store) { client in
        let first = try await Self.prepare(ledger, store, debit: 0)
        let worker = Self.worker(ledger, client, store, policy: policy)
        #expect(await worker.runOnce().closed == 1)
        let skipped = try await ConsumptionRequests(ledger: ledger).request(first)
        #expect(skipped.state == .skipped)
        #expect(skipped.problem?.contains("no consent is recorded") == true, "\(skipped)")
        #expect(store.consumptionAnswers().isEmpty)

        // The app records the customer's consent (collected the day before).
        let consents = RefundConsents(ledger: ledger)
        try await consents.record(
          appAccountToken: Self.token, consented: true, collectedAt: F.t(9).date,
          method: "refund dialog v2")
        let duplicate = try await consents.record(
          appAccountToken: Self.token, consented: true, collectedAt: F.t(9).date,
          method: "refund dialog v2")
        #expect(duplicate.wasDuplicate)
        var count = store.notifications().count
        store.put(
          F.transaction(
            "3001", product: "gems", type: .consumable, purchased: 8, token: Self.token),
          customer: "c1")
        store.requestRefund(of: "3001")
        count = try await Self.deliver(store, to: ledger, from: count)
        let pass = await worker.runOnce()
        let listed = try await ConsumptionRequests(ledger: ledger).list()
        #expect(pass.answered == 1, "\(pass) \(listed)")
        #expect(store.consumptionAnswers().last?.information.customerConsented == true)
        let answered = try await ConsumptionRequests(ledger: ledger).request("3001")
        #expect(answered.reasons.first?.contains("recorded by the app") == true)

        // A withdrawal after it: the next request is skipped, naming the withdrawal.
        try await consents.record(
          appAccountToken: Self.token, consented: false,
          collectedAt: Date(timeIntervalSince1970: F.t(9).date.timeIntervalSince1970 + 3600))
        store.put(
          F.transaction(
            "3002", product: "gems", type: .consumable, purchased: 8, token: Self.token),
          customer: "c1")
        store.requestRefund(of: "3002")
        try await Self.deliver(store, to: ledger, from: count)
        #expect(await worker.runOnce().closed == 1)
        let withdrawn = try await ConsumptionRequests(ledger: ledger).request("3002")
        #expect(withdrawn.state == .skipped && withdrawn.problem?.contains("withdrew") == true)
        #expect(store.consumptionAnswers().count == 1)
        let history = try await consents.history(for: Self.token)
        #expect(history.map(\.consented) == [true, false])
        // The answers fold nothing: the account's view and the audit are as before.
        let report = try await LedgerMaintenance(ledger: ledger).audit()
        #expect(report.isConsistent, "\(report.problems)")
      }
    }
  }
}
