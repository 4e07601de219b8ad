import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The seat ledger end to end: a real PostgreSQL, the simulated App Store's seat endpoints.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SeatLedgerTests {
  typealias F = LedgerFixtures
  typealias H = SimulatedAppStoreHarness
  static let purchaser = F.account(1)
  static let member = F.account(2)
  static let other = F.account(3)
  static let chain = "2000000000601"

  /// A Sandbox store at day 1 where the purchaser holds a 2-seat group subscription
  /// (`management`), expiring at day 30.
  static func store(management: InvitationManagement = .developer, seats: Int32 = 2)
    -> SimulatedAppStore
  {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890),
      signer: H.pki, now: F.t(0))
    var purchase = F.transaction(
      chain, purchased: 0, expires: 30, token: purchaser, quantity: seats)
    purchase.multiSeatInfo = TransactionMultiSeatInfo(
      invitationManagement: management,
      priceTiers: [MultiSeatPriceTier(tierPrice: 9_990, tierQuantity: seats)])
    store.put(purchase, customer: "purchaser")
    // The members have downloads of their own (their appTransactionIds).
    store.put(
      F.transaction("3000", type: .nonConsumable, purchased: 0, token: member), customer: "member")
    store.advance(to: F.t(1))
    return store
  }

  /// `body` with a ledger holding the store's group purchase and a seat ledger calling the
  /// store (one attempt per call when `attempts` is 1).
  static func withSeats(
    _ store: SimulatedAppStore, attempts: Int = 4,
    _ body:
      @Sendable (Ledger, SeatLedger, AppStoreServerAPIClient, TestDatabase) async throws -> Void
  ) async throws {
    try await H.withLedger { ledger, database in
      _ = try await ledger.ingest(signedTransaction: try #require(store.signedTransaction(chain)))
      try await H.withClient(store, maximumAttempts: attempts) { client in
        try await body(ledger, SeatLedger(ledger: ledger, apple: client), client, database)
      }
    }
  }

  static func eventCount(_ database: TestDatabase) async throws -> Int {
    try await database.asWriter { client in
      try await LogStatements.counts(on: client, logger: TestDatabase.logger).events
    }
  }

  @Test func aClaimGrantsTheMemberAndARetryTakesNoSecondSeat() async throws {
    let store = Self.store()
    try await Self.withSeats(store) { ledger, seats, _, _ in
      let download = SimulatedAppStore.appTransactionId(of: "member")
      let first = try await seats.claim(
        Self.chain, for: Self.member, appTransactionId: download, at: F.t(1).date)
      #expect(!first.wasDuplicate && first.claim.state == .claimed)
      let id = try #require(first.claim.seatClaimId)
      #expect(store.seatClaims(of: Self.chain) == [id: download])
      let again = try await seats.claim(Self.chain, for: Self.member, at: F.t(2).date)
      #expect(again.wasDuplicate && again.claim.seatClaimId == id)
      #expect(store.seatClaims(of: Self.chain).count == 1)

      // The member holds the group subscription's entitlement while the claim holds.
      let granted = try await ledger.entitlements(for: Self.member, at: F.t(5).date)
      #expect(granted.map(\.entitlement) == ["pro.monthly"])
      #expect(granted.first?.active == true && granted.first?.source == "seat:\(id)")
      #expect(granted.first?.rule == "E5")
      let why = try await ledger.explain(
        entitlement: "pro.monthly", for: Self.member, at: F.t(5).date)
      #expect(
        why.because.first?.events.contains { $0.eventType == SeatClaimEvent.eventType } == true)
      #expect(why.because.first?.events.allSatisfy { ($0.signedDate ?? F.t(0)) <= F.t(5) } == true)

      let report = try await seats.show(Self.chain, at: F.t(5).date)
      #expect(
        report.seats?.total == 2 && report.seats?.claimed == 1 && report.seats?.available == 1)
      #expect(report.appAccountToken == Self.purchaser)

      // Released: Apple's seat is free again and the member's entitlement ends.
      let released = try await seats.release(Self.chain, seatClaimId: id, at: F.t(6).date)
      #expect(released.state == .released)
      #expect(store.seatClaims(of: Self.chain).isEmpty)
      let after = try await ledger.entitlements(for: Self.member, at: F.t(7).date)
      #expect(after.map(\.active) == [false])
      let releasedAgain = try await seats.release(Self.chain, seatClaimId: id, at: F.t(8).date)
      #expect(releasedAgain.state == .released)
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
    }
  }

  /// The process "crashes" between Claim Seat and recording its answer (the answer is lost
  /// after Apple took the seat); the claim made again after the restart sends the same
  /// request identifier, and Apple answers with the same seat.
  @Test func aLostAnswerIsClaimedAgainWithoutASecondSeat() async throws {
    let store = Self.store()
    store.loseNextClaimAnswers(1)
    try await Self.withSeats(store, attempts: 1) { ledger, seats, client, _ in
      do {
        _ = try await seats.claim(Self.chain, for: Self.member, at: F.t(1).date)
        Issue.record("the lost answer was not noticed")
      } catch let error as LedgerError {
        #expect(error.code == .appleUnavailable)
      }
      #expect(store.seatClaims(of: Self.chain).count == 1, "Apple took the seat")
      let pending = try await seats.show(Self.chain, at: F.t(1).date)
      #expect(pending.claims.map(\.state) == [.pending])
      // A new process: nothing of the first survives but the log.
      let restarted = SeatLedger(ledger: ledger, apple: client)
      let claimed = try await restarted.claim(Self.chain, for: Self.member, at: F.t(2).date)
      #expect(claimed.claim.state == .claimed)
      #expect(claimed.claim.requestIdentifier == pending.claims.first?.requestIdentifier)
      #expect(store.seatClaims(of: Self.chain).keys.sorted() == [claimed.claim.seatClaimId])
      #expect(try await seats.show(Self.chain, at: F.t(2).date).seats?.claimed == 1)
    }
  }

  @Test func badClaimsAreTypedErrorsAndAppendNothing() async throws {
    try await Self.withSeats(Self.store(management: .apple)) { _, seats, _, database in
      let before = try await Self.eventCount(database)
      await #expect(throws: LedgerError.self) {
        _ = try await seats.claim(Self.chain, for: "not-a-uuid", at: F.t(1).date)
      }
      do {
        _ = try await seats.claim(Self.chain, for: Self.member, at: F.t(1).date)
        Issue.record("an Apple-hosted group took a developer claim")
      } catch let error as LedgerError {
        #expect(error.code == .notDeveloperHosted, "\(error)")
      }
      do {
        _ = try await seats.release(
          Self.chain, seatClaimId: "5b0c2d4e-0000-4000-8000-000000000001", at: F.t(1).date)
        Issue.record("an unknown claim was released")
      } catch let error as LedgerError {
        #expect(error.code == .notFound, "\(error)")
      }
      do {
        _ = try await seats.show("123", at: F.t(1).date)
        Issue.record("an unknown subscription was shown")
      } catch let error as LedgerError {
        #expect(error.code == .notFound)
      }
      #expect(try await Self.eventCount(database) == before)
    }
    try await Self.withSeats(Self.store()) { _, seats, _, database in
      let before = try await Self.eventCount(database)
      do {
        _ = try await seats.claim(Self.chain, for: Self.member, at: F.t(40).date)
        Issue.record("an expired subscription took a claim")
      } catch let error as LedgerError {
        #expect(error.code == .subscriptionNotActive, "\(error)")
      }
      #expect(try await Self.eventCount(database) == before)
    }
  }

  /// Every seat claimed: Apple's NoAvailableSeatsError comes back typed, and the refused
  /// request is recorded as refused, never as claimed.
  @Test func appleRefusalsAreTypedAndNothingIsRecordedClaimed() async throws {
    try await Self.withSeats(Self.store(seats: 1)) { ledger, seats, _, _ in
      _ = try await seats.claim(Self.chain, for: Self.member, at: F.t(1).date)
      do {
        _ = try await seats.claim(Self.chain, for: Self.other, at: F.t(2).date)
        Issue.record("a second claim on one seat was accepted")
      } catch let error as LedgerError {
        #expect(error.code == .appleRefused)
        #expect(error.appleErrorCode == APIErrorCode.noAvailableSeats.rawValue)
      }
      let report = try await seats.show(Self.chain, at: F.t(3).date)
      #expect(
        report.claims.map(\.state).sorted { $0.rawValue < $1.rawValue } == [.claimed, .refused])
      #expect(try await ledger.entitlements(for: Self.other, at: F.t(3).date).isEmpty)
    }
  }

  /// The App Store releases a claim itself: UNCLAIM_SEATS (claim ids only) is routed by the
  /// claims to the subscription's seat stream, and the member's access ends.
  @Test func unclaimSeatsReleasesExactlyTheListedClaims() async throws {
    let store = Self.store()
    try await Self.withSeats(store) { ledger, seats, _, _ in
      let kept = try await seats.claim(Self.chain, for: Self.other, at: F.t(1).date)
      let dropped = try await seats.claim(Self.chain, for: Self.member, at: F.t(1).date)
      store.advance(to: F.t(3))
      store.unclaimSeats(Self.chain, [try #require(dropped.claim.seatClaimId)])
      let notification = try #require(store.notifications().last)
      let stored = try await ledger.ingest(notification: notification.signedPayload)
      #expect(stored.streamId == "seats:Sandbox:\(Self.chain)")
      #expect(!stored.unrouted && stored.understood)
      #expect(
        try await ledger.entitlements(for: Self.member, at: F.t(4).date).map(\.active) == [false])
      #expect(
        try await ledger.entitlements(for: Self.other, at: F.t(4).date).map(\.active) == [true])
      let report = try await seats.show(Self.chain, at: F.t(4).date)
      let states = Dictionary(
        uniqueKeysWithValues: report.claims.map { ($0.seatClaimId ?? "", $0.state) })
      #expect(states[dropped.claim.seatClaimId ?? ""] == .unclaimedByApple)
      #expect(states[kept.claim.seatClaimId ?? ""] == .claimed)
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
    }
  }

  /// A claim made behind the ledger's back: Get Seat Info disagrees, and the disagreement is
  /// recorded once.
  @Test func reconcileRecordsADisagreementOnce() async throws {
    let store = Self.store()
    try await Self.withSeats(store) { _, seats, client, _ in
      _ = try await seats.claim(Self.chain, for: Self.member, at: F.t(1).date)
      let agreed = try await seats.reconcile(Self.chain, at: F.t(1).date)
      #expect(agreed.agrees)
      let stranger = try await client.claimSeat(
        Self.chain, ClaimSeatRequest(requestIdentifier: "elsewhere-1"))
      let found = try await seats.reconcile(Self.chain, at: F.t(2).date)
      #expect(found.onlyAtApple == [stranger] && found.onlyInLedger.isEmpty && found.recorded)
      let again = try await seats.reconcile(Self.chain, at: F.t(2).date)
      #expect(!again.agrees && !again.recorded)
    }
  }

  /// Get Customer Groups and Get Group Members against the simulator: roles only for
  /// organizations, every page of members, Apple's errors for a bad limit and an unknown group.
  @Test func customerGroupsAndGroupMembers() async throws {
    let store = Self.store()
    store.put(
      F.transaction("3001", type: .nonConsumable, purchased: 0, token: Self.other),
      customer: "other")
    store.joinGroup(
      "grp-1", type: .organization, customer: "member",
      roles: [RoleEntry(productId: "pro.monthly", role: "ADMIN")])
    store.joinGroup("grp-1", type: .organization, customer: "other", roles: nil)
    store.joinGroup("family-2", type: .consumer, customer: "member", roles: nil)
    try await H.withClient(store) { client in
      let groups = try await client.customerGroups("3000")
      #expect(groups.map(\.groupId) == ["grp-1", "family-2"])
      #expect(groups.first?.roles?.first?.role == "ADMIN")
      #expect(groups.last?.groupType == .consumer && groups.last?.roles == nil)
      let members = try await client.groupMembers("grp-1", limit: 1)
      #expect(
        members.map(\.appTransactionId)
          == [
            SimulatedAppStore.appTransactionId(of: "member"),
            SimulatedAppStore.appTransactionId(of: "other"),
          ])
      await #expect(throws: AppStoreAPIError.self) {
        _ = try await client.groupMembers("grp-1", limit: 101)
      }
      do {
        _ = try await client.groupMembers("nope")
        Issue.record("an unknown group answered")
      } catch let error as AppStoreAPIError {
        #expect(error.apiErrorCode == .groupNotFound)
      }
    }
  }
}
