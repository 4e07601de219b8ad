import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Explanations are true: over a simulated year of hundreds of customers (every notification
/// Apple sent them, the one-time purchases the app forwarded, the units the backend spent),
/// at random instants, every entitlement of the catalog is explained, and each explanation
/// cites only events of the account, none signed (or, under `knownAt`, recorded) after the
/// moment, and exactly the events that decided: without them the answer changes, unless the
/// explanation is the default ("never held"), which cites none.
@Suite struct ExplanationPropertyTests {
  typealias H = SimulatorHarness
  static let customers = 360
  static let instants = 20

  struct Failure: CustomStringConvertible {
    let token: String
    let entitlement: String
    let time: Timestamp
    let problem: String
    var description: String { "\(entitlement) of \(token) at \(time): \(problem)" }
  }

  @Test func explanationsCiteExactlyTheEventsThatDecidedAndNoneAfterTheMoment() async throws {
    let configuration = SimulationConfiguration(customers: Self.customers, months: 12, seed: 3_636)
    let simulation = Simulation(configuration)
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: H.bundleId, appAppleId: 1_234_567_890), signer: H.pki,
      now: configuration.start)
    simulation.apply(to: store, through: configuration.end)
    var random = SeededRandom(seed: 36)
    let accounts = try await Self.accounts(simulation, store, random: &random)
    let catalog = SimulatedProducts.catalog
    let names = Set(catalog.products.values.flatMap { $0.entitlements ?? [] })
    let span = configuration.end.milliseconds - configuration.start.milliseconds
    var failures: [Failure] = []
    var explained = 0
    var removals = 0
    var neverHeld = 0
    var corroborated = 0
    var withKnownAt = 0
    for (token, events) in accounts.sorted(by: { $0.key < $1.key }) {
      let explainer = AccountExplainer(events: events, catalog: catalog)
      let byReference = Dictionary(
        events.map { ($0.reference, $0) }, uniquingKeysWith: { first, _ in first })
      for _ in 0..<Self.instants {
        let time = Timestamp(
          milliseconds: configuration.start.milliseconds + Int64(random.int(0..<Int(span))))
        // One instant in four asks "as we knew it" a few days before the moment.
        let knownAt =
          random.chance(0.25)
          ? Timestamp(milliseconds: time.milliseconds - Int64(random.int(0..<4 * 86_400_000)))
          : nil
        if knownAt != nil { withKnownAt += 1 }
        let all = explainer.explainAll(for: token, at: time, knownAt: knownAt)
        func fail(_ entitlement: String, _ problem: String) {
          failures.append(
            .init(token: token, entitlement: entitlement, time: time, problem: problem))
        }
        let listed = Set(all.map { String($0.subject.dropFirst("entitlement ".count)) })
        if !names.isSubset(of: listed) { fail("*", "not every catalog entitlement is listed") }
        for explanation in all {
          explained += 1
          let name = String(explanation.subject.dropFirst("entitlement ".count))
          let cited = explanation.allEvents
          if !explanation.signedLater.isEmpty {
            fail(name, "cites events signed later although everything was delivered")
          }
          for reference in cited {
            guard let event = byReference[reference] else {
              fail(name, "cites \(reference) which the account does not hold")
              continue
            }
            if let signed = event.effectiveDate, signed > time {
              fail(name, "cites \(reference.notification ?? reference.eventType) signed \(signed)")
            }
            if let knownAt, (event.recordedAt ?? knownAt) > knownAt {
              fail(name, "cites an event recorded after --known-at")
            }
          }
          if explanation.answer == "never held" {
            neverHeld += 1
            if !cited.isEmpty || !explanation.rule.hasPrefix("E0") {
              fail(name, "the default answer cites events or does not say it is the default")
            }
            continue
          }
          if !explanation.corroborating.isEmpty { corroborated += 1 }
          // Without the deciding events (and the others carrying the same facts), the answer
          // is another one.
          let removed = Set(explanation.events + explanation.corroborating)
          let without = AccountExplainer(
            events: events.filter { !removed.contains($0.reference) }, catalog: catalog
          ).explain(entitlement: name, for: token, at: time, knownAt: knownAt)
          removals += 1
          if without.answer == explanation.answer && without.sentence == explanation.sentence {
            let ids = Set(removed.compactMap(\.transactionId))
            let left = events.filter {
              !removed.contains($0.reference) && ids.contains($0.reference.transactionId ?? "")
            }.map { "\($0.reference)" }
            fail(
              name,
              "the same answer without its cited events: \(explanation.sentence); removed \(removed); left \(left)"
            )
          }
          // The explanation's answer is the log's answer at that moment.
          let view = LedgerView(
            LedgerState.fold(events, knowing: knownAt.map(Knowledge.weKnew(at:)) ?? .everything),
            catalog: catalog)
          let active = view.entitlements(for: token, at: time).first { $0.entitlement == name }?
            .active
          if (explanation.answer == "active") != (active == true) {
            fail(name, "answers \(explanation.answer) where the log says \(active as Any)")
          }
        }
      }
    }
    print(
      "explanations: \(accounts.count) accounts × \(Self.instants) instants, \(explained) "
        + "explained (\(neverHeld) never held, \(corroborated) with corroborating events, "
        + "\(withKnownAt) instants under knownAt), \(removals) removals, "
        + "\(failures.count) failures")
    for failure in failures.prefix(15) { print("  \(failure)") }
    #expect(accounts.count >= 300)
    #expect(removals > accounts.count * Self.instants)
    #expect(neverHeld > 0 && corroborated > 0)
    #expect(failures.isEmpty)
  }

  /// Each customer's events by account token: the notifications Apple signed (recorded within
  /// a day of signing), the one-time purchases the app forwarded, and units the backend spent.
  static func accounts(
    _ simulation: Simulation, _ store: SimulatedAppStore, random: inout SeededRandom
  ) async throws -> [String: [LedgerEvent]] {
    let verifier = try H.verifier()
    let tokens = Dictionary(
      uniqueKeysWithValues: simulation.truth.customers.map { ($0.id, $0.appAccountToken) })
    func token(of event: LedgerEvent) -> String? {
      guard let chain = event.body.streamSubject, let owner = simulation.truth.owners[chain]
      else { return nil }
      return tokens[owner] ?? nil
    }
    var accounts: [String: [LedgerEvent]] = [:]
    func add(_ event: LedgerEvent?, recordedAfter delay: Int64) async {
      guard let event, let account = token(of: event) else { return }
      let recorded = (event.effectiveDate?.milliseconds ?? 0) + delay
      accounts[account, default: []].append(
        LedgerEvent(
          event.body, recordedAt: Timestamp(milliseconds: recorded),
          key: "e\(accounts.values.reduce(0) { $0 + $1.count })"))
    }
    for notification in store.notifications() {
      let unverified = try UnverifiedJWS<ResponseBodyV2DecodedPayload>(notification.signedPayload)
      guard unverified.claims.bundleId != nil else { continue }
      let verified = try await verifier.verifyNotification(notification.signedPayload)
      await add(
        LedgerEvent(
          claims: .notification(
            NotificationClaims(
              notification: verified.payload, transaction: verified.transaction?.payload,
              renewalInfo: verified.renewalInfo?.payload,
              appTransaction: verified.appTransaction?.payload))),
        recordedAfter: Int64(random.int(0..<86_400_000)))
    }
    for customer in simulation.truth.customers {
      guard let account = customer.appAccountToken else { continue }
      for (id, owner) in simulation.truth.owners.sorted(by: { $0.key < $1.key })
      where owner == customer.id {
        guard var payload = store.transaction(id), payload.type != .autoRenewableSubscription
        else { continue }
        // As StoreKit gave it to the app at the purchase: signed then, not refunded yet.
        payload.signedDate = payload.purchaseDate
        payload.revocationDate = nil
        payload.revocationReason = nil
        payload.revocationType = nil
        payload.revocationPercentage = nil
        await add(
          LedgerEvent(
            claims: .transaction(
              SignedTransactionClaims(transaction: payload, appAccountToken: account))
          ), recordedAfter: 1_000)
        // The backend spends some units of a consumable a few days after the purchase.
        guard payload.type == .consumable, let bought = payload.purchaseDate?.milliseconds,
          let product = payload.productId, random.chance(0.6)
        else { continue }
        let spentAt = Timestamp(milliseconds: bought + Int64(random.int(1..<11)) * 86_400_000)
        let debit = ConsumableDebited(
          id: "spend-\(id)", appAccountToken: account, productId: product,
          quantity: Int64(random.int(1..<6)), debitedAt: spentAt)
        accounts[account, default: []].append(
          LedgerEvent(.debit(debit), recordedAt: spentAt, key: "debit:\(id)"))
      }
    }
    return accounts
  }
}
