import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Reads on a real streaming replica of the test cluster: answers stay those of the primary
/// for this process's writes, a replica that lags or stops is left out without an error
/// reaching the caller, and it comes back.
@Suite(.enabled(if: TestDatabase.shouldRun && TestReplica.shouldRun), .serialized)
struct ReadReplicaTests {
  typealias F = LedgerFixtures
  static let token = F.account(1)

  struct Setup {
    let ledger: Ledger
    let replicas: ReadReplicas
    /// The ledger reading the replica alone: what the replica says, stale or not.
    let replicaOnly: Ledger
    let database: TestDatabase
  }

  static func configuration(timeout: Duration = .seconds(10)) -> LedgerConfiguration {
    LedgerConfiguration(
      bundleId: "com.example.app", environments: [.sandbox],
      trustedRoots: AccountViewTests.pki.trustedRoots, catalog: AccountViewTests.catalog,
      databaseTimeout: timeout)
  }

  func withReplica(
    _ settings: ReadReplicas.Settings, timeout: Duration = .seconds(10),
    _ body: @Sendable (Setup) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated { database in
      let url = try await TestReplica.url(of: database)
      try await database.asWriter { client in
        try await PostgresClient.withRunningClient(url, logger: TestDatabase.logger) { replica in
          let replicas = ReadReplicas(
            primary: client, replicas: [ReadReplica(name: url.address, client: replica)],
            settings: settings, logger: TestDatabase.logger)
          try await body(
            Setup(
              ledger: try Ledger(
                client: client, configuration: Self.configuration(timeout: timeout),
                logger: TestDatabase.logger, replicas: replicas),
              replicas: replicas,
              replicaOnly: try Ledger(
                client: replica, configuration: Self.configuration(),
                logger: TestDatabase.logger),
              database: database))
        }
      }
    }
  }

  /// Period `n` (30 days from day 30·n) of the account's subscription.
  static func renew(_ ledger: Ledger, _ n: Int) async throws {
    try await AccountViewTests.subscribe(
      ledger, uuid: "rr-\(n)", id: "\(1000 + n)", from: Double(n * 30), to: Double(n * 30 + 30),
      type: n == 0 ? .subscribed : .didRenew)
  }

  /// Whether `answer` is the entitlement of period `n`: active, ending when the period does.
  static func holds(_ answer: [EntitlementView], period n: Int) -> Bool {
    answer.count == 1 && answer[0].active && answer[0].expiresDate == F.t(Double(n * 30 + 30))
  }

  /// In the middle of period `n`.
  static func during(_ n: Int) -> Date { F.t(Double(n * 30 + 15)).date }

  /// Ten renewals, each read right after its ingest: the replica answers every read, and
  /// every answer holds the renewal just written and equals the primary's. The replica is
  /// given as long to answer as to catch up: on a loaded machine its position query once
  /// took over the default 2 s, took it out of rotation, and failed the test on timing.
  @Test func theReplicaAnswersOnceItHasReplayedThisProcesssWrite() async throws {
    try await withReplica(.init(maximumWait: .seconds(10), replicaTimeout: .seconds(10))) {
      setup in
      for n in 0..<10 {
        try await Self.renew(setup.ledger, n)
        let answer = try await setup.ledger.entitlements(for: Self.token, at: Self.during(n))
        #expect(Self.holds(answer, period: n), "period \(n)")
        #expect(
          answer
            == (try await setup.ledger.entitlements(
              for: Self.token, at: Self.during(n), consistency: .exact)))
      }
      let status = try #require(setup.replicas.statuses.first)
      #expect(status.inRotation)
      #expect(status.fellBack == 0)
      #expect(status.served >= 10)
    }
  }

  /// An erasure on the primary reaches the replica like any write: once replayed, the
  /// replica holds the tombstones, not the account.
  @Test func anErasureReachesTheReplica() async throws {
    try await withReplica(.init(maximumWait: .seconds(10))) { setup in
      for n in 0..<2 { try await Self.renew(setup.ledger, n) }
      let receipt = try await setup.database.asAdmin { admin in
        try await AccountErasure(
          ledger: try Ledger(
            client: admin, configuration: Self.configuration(), logger: TestDatabase.logger)
        ).erase([Self.token], reason: "GDPR Art. 17 request", requestedBy: "dpo")
      }
      #expect(receipt.outcome == .erased && receipt.erasedRows >= 2)
      try await TestReplica.waitUntilReplayed(setup.database)
      #expect(try await setup.replicaOnly.events(for: Self.token).isEmpty)
      #expect(try await setup.replicaOnly.entitlements(for: Self.token, at: Self.during(1)).isEmpty)
      let onReplica = try await PostgresClient.withRunningClient(
        try await TestReplica.url(of: setup.database), logger: TestDatabase.logger
      ) { replica in
        try await replica.query(
          """
          SELECT count(*) FILTER (WHERE erased_by IS NOT NULL),
                 count(*) FILTER (WHERE payload::text LIKE '%' || \(Self.token) || '%')
          FROM storeledger.events
          """, logger: TestDatabase.logger
        ) { rows in
          var counts = (Int64(0), Int64(0))
          for try await row in rows.decode((Int64, Int64).self) { counts = row }
          return counts
        }
      }
      #expect(onReplica.0 == receipt.erasedRows)
      #expect(onReplica.1 == 0)
    }
  }

  /// A replica wait configured longer than the database timeout: a read of a write the
  /// paused replica lacks is answered by the primary when the time is up, not refused.
  @Test func aWaitLongerThanTheTimeoutStillGetsTheAnswer() async throws {
    try await withReplica(.init(maximumWait: .seconds(30)), timeout: .seconds(1)) { setup in
      try await Self.renew(setup.ledger, 0)
      try await TestReplica.waitUntilReplayed(setup.database)
      try await TestReplica.pauseReplay()
      do {
        try await Self.renew(setup.ledger, 1)
        let answer = try await setup.ledger.entitlements(for: Self.token, at: Self.during(1))
        #expect(Self.holds(answer, period: 1))
        // The replica was slow, not gone: the read's own deadline running out while it
        // waited does not take the replica out of rotation as one that does not answer.
        let status = setup.replicas.statuses[0]
        #expect(status.inRotation, "\(status.reason ?? "")")
      } catch {
        try await TestReplica.resumeReplay()
        throw error
      }
      try await TestReplica.resumeReplay()
    }
  }

  /// A replica that stopped replaying still answers, from the past; a read of an account this
  /// process just wrote waits its bounded time and is answered by the primary, right.
  @Test func aReplicaBehindTheWriteLeavesTheReadToThePrimary() async throws {
    try await withReplica(.init(maximumWait: .milliseconds(100))) { setup in
      try await Self.renew(setup.ledger, 0)
      try await TestReplica.waitUntilReplayed(setup.database)
      try await TestReplica.pauseReplay()
      do {
        try await Self.renew(setup.ledger, 1)
        // What the replica alone says: the renewal is missing.
        #expect(try await setup.replicaOnly.events(for: Self.token).count == 1)
        let stale = try await setup.replicaOnly.entitlements(for: Self.token, at: Self.during(1))
        #expect(!Self.holds(stale, period: 1))
        let served = setup.replicas.statuses[0].served
        let answer = try await setup.ledger.entitlements(for: Self.token, at: Self.during(1))
        #expect(Self.holds(answer, period: 1))
        #expect(setup.replicas.statuses[0].fellBack >= 1)
        #expect(setup.replicas.statuses[0].served == served)
        let events = try await setup.ledger.events(for: Self.token)
        #expect(events.count == 2)
      } catch {
        try await TestReplica.resumeReplay()
        throw error
      }
      try await TestReplica.resumeReplay()
    }
  }

  /// The monitor takes out a replica further behind than the bound, the primary answers
  /// meanwhile, and the replica is put back once it has caught up.
  @Test func aLaggingReplicaIsTakenOutAndPutBack() async throws {
    let settings = ReadReplicas.Settings(
      maximumWait: .milliseconds(50), maximumLag: .milliseconds(300))
    try await withReplica(settings) { setup in
      try await Self.renew(setup.ledger, 0)
      try await TestReplica.waitUntilReplayed(setup.database)
      await setup.replicas.probe()
      #expect(setup.replicas.statuses[0].inRotation)
      try await TestReplica.pauseReplay()
      do {
        try await Self.renew(setup.ledger, 1)
        // The replica falls behind as the primary's clock runs past the allowed lag: probe
        // until it is taken out (or 30 s pass), rather than after a guessed delay.
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
          await setup.replicas.probe()
          if !setup.replicas.statuses[0].inRotation { break }
          try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        let out = setup.replicas.statuses[0]
        #expect(!out.inRotation)
        #expect(out.reason?.contains("behind") == true)
        let answer = try await setup.ledger.entitlements(for: Self.token, at: Self.during(1))
        #expect(Self.holds(answer, period: 1))
        #expect(setup.replicas.statuses[0].served == out.served)
      } catch {
        try await TestReplica.resumeReplay()
        throw error
      }
      try await TestReplica.resumeReplay()
      try await TestReplica.waitUntilReplayed(setup.database)
      await setup.replicas.probe()
      #expect(setup.replicas.statuses[0].inRotation)
      let served = setup.replicas.statuses[0].served
      _ = try await setup.ledger.entitlements(for: Self.token, at: Self.during(1))
      #expect(setup.replicas.statuses[0].served > served)
    }
  }

  /// The change feed on a replica behind the reader: a position the replica has not replayed
  /// is read on the primary, never refused as beyond the feed.
  @Test func aFeedPositionTheReplicaLacksIsReadOnThePrimary() async throws {
    try await withReplica(.init(maximumWait: .milliseconds(50))) { setup in
      try await TestReplica.waitUntilReplayed(setup.database)
      try await TestReplica.pauseReplay()
      do {
        for customer in 1...2 {
          try await AccountViewTests.subscribe(
            setup.ledger, uuid: "feed-\(customer)", id: "\(2000 + customer)",
            original: "\(2000 + customer)", token: F.account(customer), from: 0, to: 30)
        }
        _ = try await AccountProjector(ledger: setup.ledger, logger: TestDatabase.logger)
          .catchUp(now: Self.during(0))
        let head = try await ChangeFeedReader(ledger: setup.ledger).head()
        #expect(head >= 2)
        #expect(try await ChangeFeedReader(ledger: setup.replicaOnly).head() == 0)
        let rest = try await ChangeFeedReader(ledger: setup.ledger).changes(after: 1)
        #expect(rest.map(\.position) == Array(2...head))
      } catch {
        try await TestReplica.resumeReplay()
        throw error
      }
      try await TestReplica.resumeReplay()
    }
  }

  /// A replica whose server stops: reads go on without an error (the primary answers), the
  /// replica is out; started again, the monitor puts it back and it answers again.
  @Test func aStoppedReplicaIsLeftOutAndComesBack() async throws {
    let settings = ReadReplicas.Settings(maximumWait: .seconds(2), replicaTimeout: .seconds(1))
    try await withReplica(settings) { setup in
      try await Self.renew(setup.ledger, 0)
      _ = try await setup.ledger.entitlements(for: Self.token, at: Self.during(0))
      try TestReplica.stop()
      do {
        for n in 1..<4 {
          try await Self.renew(setup.ledger, n)
          let answer = try await setup.ledger.entitlements(for: Self.token, at: Self.during(n))
          #expect(Self.holds(answer, period: n))
        }
        #expect(!setup.replicas.statuses[0].inRotation)
      } catch {
        try? TestReplica.start()
        throw error
      }
      try TestReplica.start()
      let deadline = ContinuousClock.now + .seconds(30)
      while !setup.replicas.statuses[0].inRotation, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(100))
        await setup.replicas.probe()
      }
      #expect(setup.replicas.statuses[0].inRotation)
      let served = setup.replicas.statuses[0].served
      let answer = try await setup.ledger.entitlements(for: Self.token, at: Self.during(3))
      #expect(Self.holds(answer, period: 3))
      #expect(setup.replicas.statuses[0].served > served)
    }
  }
}
