import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The differential test of issue 20: thousands of simulated customers over a year, their
/// notifications delivered with Apple's faults (lost, duplicated, reordered — lost renewals
/// among them), the gaps repaired from the Server API's history and statuses (signed when
/// served), then StoreLedger's status, product and entitlements compared with the simulator's
/// own truth at 60 instants per customer. The truth comes from the simulator's timeline (what
/// it sold, when, at what level), never from StoreLedger's reducers.
@Suite struct DifferentialTruthTests {
  typealias H = SimulatorHarness
  static let customers =
    Int(ProcessInfo.processInfo.environment["DIFFERENTIAL_CUSTOMERS"] ?? "") ?? 2_000
  static let instants = 60

  struct Disagreement: CustomStringConvertible {
    let what: String
    let id: String
    let time: Timestamp
    let engine: String
    let truth: String
    var description: String { "\(what) of \(id) at \(time): StoreLedger \(engine), truth \(truth)" }
  }

  @Test func storeLedgerAgreesWithTheSimulatorsTruth() async throws {
    let configuration = SimulationConfiguration(customers: Self.customers, months: 12, seed: 2_020)
    let (simulation, store) = H.year(configuration)
    let verifier = try H.verifier()
    var random = SeededRandom(seed: 77)
    let deliveries = try await Self.deliveries(of: store, verifier, &random)
    var delivered = deliveries.delivered
    let (recovered, unrouted) = (deliveries.lost, deliveries.unrouted)
    delivered.shuffle(using: &random)
    let lost = recovered.count
    // The app forwards each one-time purchase with its account token, in either case (Swift's
    // UUID().uuidString is upper case, Apple writes lower case).
    for customer in simulation.truth.customers {
      guard let token = customer.appAccountToken else { continue }
      for (id, owner) in simulation.truth.owners where owner == customer.id {
        guard let payload = store.transaction(id), payload.type != .autoRenewableSubscription
        else { continue }
        let forwarded = random.chance(0.5) ? token.uppercased() : token
        delivered.append(
          LedgerEvent(
            claims: .transaction(
              SignedTransactionClaims(transaction: payload, appAccountToken: forwarded)))!)
      }
    }
    let repaired = try await Self.replay(simulation.truth, store, verifier)
    // Recovery comes last, after the replay: late deliveries fold like timely ones.
    let events = delivered + repaired + recovered
    let (compared, disagreements) = Self.compare(events, simulation.truth, configuration)
    print(
      "differential: \(Self.customers) customers, \(store.notifications().count) notifications "
        + "(\(lost) lost), \(repaired.count) events replayed, \(compared) answers compared at "
        + "\(Self.instants) instants per customer, "
        + "\(disagreements.count) disagreements with the simulator's truth")
    for disagreement in disagreements.prefix(20) { print("  \(disagreement)") }
    #expect(lost > 100)
    #expect(unrouted > 0)
    #expect(compared > Self.customers * Self.instants)
    #expect(disagreements.isEmpty, "\(disagreements.count) disagreements")
    // Every month's money from the same events against the simulated store's own books.
    let revenue = try Self.revenueDifferences(events, store.books, configuration)
    print(
      "differential revenue: \(revenue.compared) figures compared with the store's books, "
        + "\(revenue.differences.count) differences")
    for difference in revenue.differences.prefix(20) { print("  \(difference)") }
    #expect(revenue.compared >= 12 * 7)
    #expect(revenue.differences.isEmpty, "\(revenue.differences.count) revenue differences")
  }

  /// Every notification the store sent, verified and delivered as Apple does: 8 % lost on
  /// the way (Get Notification History still serves them: `lost`), 10 % of the rest twice;
  /// kinds no release knows, naming no app, counted apart (`unrouted`).
  static func deliveries(
    of store: SimulatedAppStore, _ verifier: SignedDataVerifier, _ random: inout SeededRandom
  ) async throws -> (delivered: [LedgerEvent], lost: [LedgerEvent], unrouted: Int) {
    var delivered: [LedgerEvent] = []
    var lost: [LedgerEvent] = []
    var unrouted = 0
    for notification in store.notifications() {
      let unverified = try UnverifiedJWS<ResponseBodyV2DecodedPayload>(notification.signedPayload)
      guard unverified.claims.bundleId != nil else {
        // A kind no release knows, naming no app: kept apart by the ledger, folded by no account.
        _ = try await verifier.verifyUnroutable(unverified)
        unrouted += 1
        continue
      }
      let verified = try await verifier.verifyNotification(notification.signedPayload)
      let event = LedgerEvent(
        claims: .notification(
          NotificationClaims(
            notification: verified.payload, transaction: verified.transaction?.payload,
            renewalInfo: verified.renewalInfo?.payload,
            appTransaction: verified.appTransaction?.payload)))!
      if random.chance(0.08) {
        lost.append(event)
        continue
      }
      delivered.append(event)
      if random.chance(0.1) { delivered.append(event) }
    }
    return (delivered, lost, unrouted)
  }

  /// Charges, refunds, reversals and new subscriptions of every month and currency, from
  /// StoreLedger's metrics of `events`, against what the store booked as it charged.
  static func revenueDifferences(
    _ events: [LedgerEvent], _ books: RevenueBooks, _ configuration: SimulationConfiguration
  ) throws -> (compared: Int, differences: [String]) {
    let query = try MetricsQuery(
      from: MetricsCalendar.start(of: .month, holding: configuration.start),
      to: MetricsCalendar.next(
        .month, after: MetricsCalendar.start(of: .month, holding: configuration.end)),
      granularity: .month, now: configuration.end)
    return books.compare(try RevenueMetrics.report(of: events, for: query))
  }

  /// Every customer's history and statuses, as a replay fetches them.
  static func replay(
    _ truth: SimulationTruth, _ store: SimulatedAppStore, _ verifier: SignedDataVerifier
  )
    async throws -> [LedgerEvent]
  {
    var firstId: [String: String] = [:]
    for (id, customer) in truth.owners.sorted(by: { $0.key < $1.key })
    where firstId[customer] == nil {
      firstId[customer] = id
    }
    var events: [LedgerEvent] = []
    for id in firstId.values.sorted() {
      var request = TransactionHistoryRequest()
      request.sort = .ascending
      var revision: String?
      repeat {
        let page = try store.history(of: id, request: request, revision: revision)
        for jws in page.signedTransactions ?? [] {
          events.append(
            LedgerEvent(
              claims: .transaction(
                SignedTransactionClaims(
                  transaction: try await verifier.verifyTransaction(jws).payload))
            )!)
        }
        revision = page.hasMore == true ? page.revision : nil
      } while revision != nil
      for group in try store.statuses(of: id, filter: []).data ?? [] {
        for item in group.lastTransactions ?? [] {
          guard let transaction = item.signedTransactionInfo, let renewal = item.signedRenewalInfo
          else { continue }
          events.append(
            LedgerEvent(
              claims: .status(
                StatusClaims(
                  originalTransactionId: item.originalTransactionId ?? "",
                  subscriptionGroupIdentifier: group.subscriptionGroupIdentifier,
                  status: item.status,
                  transaction: try await verifier.verifyTransaction(transaction).payload,
                  renewalInfo: try await verifier.verifyRenewalInfo(renewal).payload)))!)
        }
      }
    }
    return events
  }

  /// Status and product of every subscription, entitlements of every customer with a token,
  /// at `instants` times spread over the year (each customer at its own offsets).
  static func compare(
    _ events: [LedgerEvent], _ truth: SimulationTruth, _ configuration: SimulationConfiguration
  ) -> (compared: Int, disagreements: [Disagreement]) {
    var compared = 0
    var byCustomer: [String: [LedgerEvent]] = [:]
    for event in events {
      guard let id = Self.chain(of: event), let customer = truth.owners[id] else { continue }
      byCustomer[customer, default: []].append(event)
    }
    let tokens = Dictionary(
      uniqueKeysWithValues: truth.customers.map { ($0.id, $0.appAccountToken) })
    let span = configuration.end.milliseconds - configuration.start.milliseconds
    var disagreements: [Disagreement] = []
    for (index, (customer, events)) in byCustomer.sorted(by: { $0.key < $1.key }).enumerated() {
      let view = LedgerView(LedgerState.fold(events), catalog: SimulatedProducts.catalog)
      let chains = truth.owners.filter { $0.value == customer }.keys.filter {
        truth.product(of: $0, at: configuration.end) != nil
      }.sorted()
      for step in 0..<instants {
        // Each customer at its own hours, all inside the simulated year.
        let slot = span / Int64(instants)
        let offset = slot * Int64(step) + (Int64(index) * 7_919 * 3_600_000) % slot
        let time = Timestamp(milliseconds: configuration.start.milliseconds + offset)
        for id in chains {
          compared += 2
          let engine = view.subscription(id, at: time)
          let status = truth.status(of: id, at: time)
          if engine?.status != status?.rawValue {
            disagreements.append(
              .init(
                what: "status", id: id, time: time, engine: "\(engine?.status as Any)",
                truth: "\(status as Any)"))
          }
          let product = truth.product(of: id, at: time)?.id
          if engine?.productId != product {
            disagreements.append(
              .init(
                what: "product", id: id, time: time, engine: "\(engine?.productId as Any)",
                truth: "\(product as Any)"))
          }
        }
        guard let token = tokens[customer] ?? nil else { continue }
        compared += 1
        let engine = Set(
          view.entitlements(for: token, at: time).filter { $0.active && $0.entitlement != "gems" }
            .map(\.entitlement))
        let expected = truth.entitlements(ofCustomer: customer, at: time)
        if engine != expected {
          disagreements.append(
            .init(
              what: "entitlements", id: customer, time: time, engine: "\(engine.sorted())",
              truth: "\(expected.sorted())"))
        }
      }
    }
    return (compared, disagreements)
  }

  /// The purchase chain (or one-time purchase) an event is about.
  static func chain(of event: LedgerEvent) -> String? {
    switch event.body {
    case .debit, .link: nil
    default: event.body.streamSubject
    }
  }
}
