import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The seeded lifecycle generator: reproducible, covering Apple's lifecycle notifications, and
/// its truth agreeing with StoreLedger's own projection of the data it signs.
@Suite struct SimulationTests {
  typealias H = SimulatorHarness
  static let configuration = SimulationConfiguration(customers: 300, months: 12, seed: 7)
  static let simulation = Simulation(configuration)

  /// Runs the whole simulation into a fresh store; returns its notifications, verified.
  static func run(_ simulation: Simulation, pki: TestPKI = H.pki) async throws -> (
    SimulatedAppStore, [VerifiedNotification]
  ) {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: H.bundleId, appAppleId: 1_234_567_890), signer: pki,
      now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let verifier = try H.verifier(trusting: pki)
    var notifications: [VerifiedNotification] = []
    for sent in store.notifications() {
      // A notification of a kind no release knows names no app: verified as such.
      let unverified = try UnverifiedJWS<ResponseBodyV2DecodedPayload>(sent.signedPayload)
      guard unverified.claims.bundleId != nil else {
        notifications.append(try await verifier.verifyUnroutable(unverified))
        continue
      }
      notifications.append(try await verifier.verifyNotification(sent.signedPayload))
    }
    return (store, notifications)
  }

  /// The decoded notification without its nested JWS strings (ECDSA signatures are random).
  static func withoutSignatures(_ notification: VerifiedNotification)
    -> ResponseBodyV2DecodedPayload
  {
    var payload = notification.payload
    payload.data?.signedTransactionInfo = nil
    payload.data?.signedRenewalInfo = nil
    return payload
  }

  @Test func theSameSeedGivesIdenticalDecodedPayloads() async throws {
    let small = SimulationConfiguration(customers: 60, months: 6, seed: 11)
    let (_, first) = try await Self.run(Simulation(small))
    let (_, second) = try await Self.run(Simulation(small), pki: try TestPKI())
    #expect(first.count > 100)
    #expect(first.map(Self.withoutSignatures) == second.map(Self.withoutSignatures))
    #expect(first.map { $0.transaction?.payload } == second.map { $0.transaction?.payload })
    #expect(first.map { $0.renewalInfo?.payload } == second.map { $0.renewalInfo?.payload })
    let (_, other) = try await Self.run(
      Simulation(SimulationConfiguration(customers: 60, months: 6, seed: 12)))
    #expect(other.map(Self.withoutSignatures) != first.map(Self.withoutSignatures))
  }

  @Test func everyLifecycleNotificationAppears() async throws {
    let (_, notifications) = try await Self.run(Self.simulation)
    let seen = Set(
      notifications.map { n in
        "\(n.payload.notificationType?.rawValue ?? "?")/\(n.payload.subtype?.rawValue ?? "")"
      })
    let expected: [String] = [
      "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW/",
      "DID_RENEW/BILLING_RECOVERY",
      "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY",
      "DID_FAIL_TO_RENEW/", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED/",
      "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE",
      "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "RENEWAL_EXTENDED/", "REFUND/",
      "REFUND_REVERSED/", "REFUND_DECLINED/", "CONSUMPTION_REQUEST/", "REVOKE/", "ONE_TIME_CHARGE/",
      "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", "DID_CHANGE_RENEWAL_PREF/", "OFFER_REDEEMED/",
      "EXPIRED/PRICE_INCREASE", "EXPIRED/PRODUCT_NOT_FOR_SALE",
      // The App Store of 2025–26: group subscriptions, withdrawn consent, a kind no release
      // knows yet.
      "DID_CHANGE_RENEWAL_PREF/INCREASE_QUANTITY", "DID_CHANGE_RENEWAL_PREF/DECREASE_QUANTITY",
      "REFUND/SEATS", "RESCIND_CONSENT/", "GADGET_RECALL/",
    ]
    #expect(Set(expected).subtracting(seen).isEmpty, "missing: \(Set(expected).subtracting(seen))")
    // A cross-grade: same level and duration, immediate like an upgrade.
    #expect(
      notifications.contains {
        $0.payload.subtype == .upgrade && $0.transaction?.payload.productId == "pro.plus.monthly"
      })
    // Offers, introductory and promotional, show on transactions.
    // Commitment plans month by month, some cancelled inside the commitment, and group
    // subscriptions with developer-hosted invitations, seats added within a period.
    let months = notifications.compactMap { $0.transaction?.payload.commitmentInfo }
    #expect(Set(months.compactMap(\.billingPeriodNumber)).isSuperset(of: [1, 2, 12]))
    #expect(
      notifications.contains {
        $0.payload.subtype == .autoRenewDisabled
          && $0.renewalInfo?.payload.commitmentInfo?.commitmentAutoRenewStatus == .off
          && $0.renewalInfo?.payload.autoRenewStatus == .on
      })
    #expect(
      notifications.contains {
        $0.transaction?.payload.multiSeatInfo?.invitationManagement == .developer
          && $0.transaction?.payload.additionalTransactionReason == .seatAddition
      })
    // Apple-hosted invitations: members hold their own ASSIGNED transactions.
    #expect(
      notifications.contains {
        $0.transaction?.payload.inAppOwnershipType == .assigned
          && $0.transaction?.payload.multiSeatInfo?.invitationManagement == .apple
      })
    let offers = Set(notifications.compactMap { $0.transaction?.payload.offerType })
    #expect(offers.isSuperset(of: [.introductory, .promotional]))
    // Signed at the simulated time, in time order, as Apple sends them.
    let dates = notifications.map { $0.payload.signedDate!.milliseconds }
    #expect(dates == dates.sorted())
    let tokens = Set(notifications.compactMap { $0.transaction?.payload.appAccountToken })
    #expect(tokens.count > 100 && tokens.allSatisfy { $0.count == 36 })
  }

  /// StoreLedger's fold of the signed notifications gives every subscription the status the
  /// generator meant, at every sampled time, and every one-time purchase its revocation.
  @Test func theTruthMatchesStoreLedgersProjection() async throws {
    let (_, notifications) = try await Self.run(Self.simulation)
    let events = notifications.map { verified in
      LedgerEvent(
        claims: .notification(
          NotificationClaims(
            notification: verified.payload, transaction: verified.transaction?.payload,
            renewalInfo: verified.renewalInfo?.payload)))!
    }
    let view = LedgerView(LedgerState.fold(events))
    let truth = Self.simulation.truth
    let start = Self.configuration.start.milliseconds
    let samples = stride(from: start, to: Self.configuration.end.milliseconds, by: 5 * 86_400_000)
      .map { Timestamp(milliseconds: $0 + 43_200_000) }
    var compared = 0
    var disagreements: [String] = []
    for id in truth.subscriptions {
      for time in samples {
        guard let expected = truth.status(of: id, at: time) else { continue }
        let projected = view.subscription(id, at: time)?.status
        compared += 1
        if projected != expected.rawValue {
          disagreements.append(
            "\(id) at \(time.milliseconds): \(String(describing: projected)) vs \(expected.rawValue)"
          )
        }
      }
    }
    #expect(compared > 5_000)
    #expect(
      disagreements.isEmpty,
      "\(disagreements.count) disagreements, first: \(disagreements.prefix(5))")
    let end = Self.configuration.end
    let purchases = Dictionary(
      view.purchases(at: end).map { ($0.transactionId, $0) }, uniquingKeysWith: { $1 })
    for id in truth.oneTimePurchases where purchases[id] != nil {
      #expect(purchases[id]?.entitled == !(truth.isRevoked(id, at: end) ?? false), "\(id)")
    }
  }

  @Test func theServerAPIServesTheSimulatedCustomers() async throws {
    let (store, _) = try await Self.run(
      Simulation(SimulationConfiguration(customers: 40, months: 6, seed: 3)))
    let truth = Simulation(SimulationConfiguration(customers: 40, months: 6, seed: 3)).truth
    try await H.withClient(store) { client, _ in
      var checked = 0
      for id in truth.subscriptions.prefix(15) {
        let statuses = try await client.subscriptionStatuses(id)
        let entry = try #require(statuses.first { $0.originalTransactionId == id })
        #expect(entry.status == truth.status(of: id, at: store.now), "\(id)")
        var history: [VerifiedTransaction] = []
        for try await page in client.transactionHistory(id) { history += page.transactions }
        #expect(history.contains { $0.payload.originalTransactionId == id })
        checked += 1
      }
      #expect(checked == 15)
    }
  }
}
