import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Synchronization
import Testing

/// The server on a real pg_auto_failover formation (`scripts/ha`: a monitor, a primary and a
/// synchronous standby), given the URL naming both nodes, while the simulated App Store
/// delivers a Production year with Apple's retries and customers' refund requests are
/// answered by the server's worker. Mid-delivery the formation loses its primary (a planned
/// switch, or a node killed with SIGKILL) or its standby (stopped and started again). After
/// each: every notification Apple sent is stored exactly once, no refund request was answered
/// twice, the change feed is complete and gap-free, the audit is consistent; the webhook's
/// unavailability (first to last 503, as a probe saw it) is printed.
@Suite(.serialized, .enabled(if: FailoverFormation.shouldRun)) struct FailoverTests {
  typealias H = ServerHarness

  enum Fault: String, CaseIterable, CustomStringConvertible {
    /// `pg_autoctl perform failover`.
    case plannedFailover = "planned-failover"
    /// The primary's keeper and postgres killed with SIGKILL; the node started again later
    /// rejoins as the standby.
    case killedPrimary = "killed-primary"
    /// The standby stopped; the primary keeps accepting writes once the monitor relaxes
    /// synchronous replication; then the standby starts again.
    case stoppedStandby = "stopped-standby"

    var description: String { rawValue }
  }

  /// Quiet; STORELEDGER_TEST_FAILOVER_LOG=info shows the server finding each new primary.
  static let logger: Logger = {
    var logger = Logger(label: "test.failover")
    logger.logLevel =
      ProcessInfo.processInfo.environment["STORELEDGER_TEST_FAILOVER_LOG"].flatMap {
        Logger.Level(rawValue: $0)
      } ?? .critical
    return logger
  }()

  static let privateKey = P256.Signing.PrivateKey()
  static let apiKey = APIKey(
    keyId: "FAILOVER01", issuerId: "6a3f9c1e-0000-4000-8000-00000000f41e",
    bundleId: SignedFixtures.bundleId, privateKey: privateKey)
  static let policy = ConsumptionPolicy(
    customerConsented: true, autoRenewable: .grantProrated, nonConsumable: .decline)

  @Test(arguments: FailoverFormation.faults(Fault.allCases), 1...3)
  func theServerRidesThroughTheFault(_ fault: Fault, round: Int) async throws {
    let name = "failover_\(fault.rawValue.replacingOccurrences(of: "-", with: "_"))_\(round)"
    let (formation, url) = try await Self.freshDatabase(name)
    let outcome = try await Self.run(fault, round: round, on: url, formation: formation)
    try await Self.waitHealthy(formation)
    try await formation.dropDatabase(name, logger: Self.logger)

    print(
      "failover \(fault) round \(round): \(outcome.sent) notifications sent, "
        + "\(outcome.stored) stored, \(outcome.duplicates) duplicates; "
        + "\(outcome.refundRequests) refund requests, \(outcome.answers) answered (\(outcome.resent) sent again, same body); "
        + "\(outcome.changes) changes; webhook unavailable "
        + String(format: "%.2f s", outcome.unavailable) + " (\(outcome.refused) refusals, "
        + "\(outcome.probes) probes); primary switches seen \(outcome.switches); refusals at "
        + outcome.refusals.joined(separator: " "))
    #expect(outcome.sent > 250)
    #expect(outcome.undelivered == 0)
    #expect(outcome.stored == outcome.sent)
    #expect(outcome.missing.isEmpty, "notifications Apple sent that the log lacks")
    #expect(outcome.duplicates == 0)
    #expect(outcome.refundRequests > 0)
    #expect(outcome.answeredTwice.isEmpty, "refund requests answered more than once")
    #expect(outcome.answers == outcome.refundRequests, "live refund requests left unanswered")
    #expect(outcome.changeGaps.isEmpty, "change positions missing")
    #expect(outcome.changesMissing.isEmpty, "accounts whose feed differs from their log")
    #expect(outcome.auditProblems.isEmpty)
    #expect(outcome.serverErrors == 0, "the webhook answered 500")
    if fault != .stoppedStandby { #expect(outcome.switches >= 1) }
  }

  /// A replay from the App Store (Get Transaction History, statuses, refunds) while the
  /// primary is lost: it waits for the new primary and goes on. Nothing is passed unstored:
  /// every subscription ends on the simulator's truth, nothing is counted as rejected, and a
  /// second run fetches and stores nothing.
  @Test(arguments: FailoverFormation.faults([Fault.plannedFailover, .killedPrimary]))
  func aReplayRidesThroughTheFault(_ fault: Fault) async throws {
    let name = "failover_replay_\(fault.rawValue.replacingOccurrences(of: "-", with: "_"))"
    let (formation, url) = try await Self.freshDatabase(name)
    let simulation = Simulation(SimulationConfiguration(customers: 80, months: 12, seed: 47))
    let store = SimulatedAppStore(
      app: SimulatedApp(
        bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890, environment: .production),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let ledgerConfiguration = LedgerConfiguration(
      bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890, environments: [.production],
      trustedRoots: H.pki.trustedRoots, catalog: Self.simulationCatalog,
      databaseTimeout: .seconds(5))
    let simulator = buildSimulatorApplication(
      store: store,
      configuration: SimulatorConfiguration(
        apiKeys: [Self.apiKey.keyId: Self.privateKey.publicKey], issuerId: Self.apiKey.issuerId),
      logger: Self.logger)
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: H.pki.trustedRoots, bundleId: SignedFixtures.bundleId,
        appAppleId: 1_234_567_890, environment: .production))
    let ids = simulation.truth.subscriptions + simulation.truth.oneTimePurchases
    try await simulator.test(.live) { simulatorClient in
      let api = AppStoreServerAPIClient(
        configuration: AppStoreServerAPIConfiguration(
          baseURL: "http://127.0.0.1:\(try #require(simulatorClient.port))", key: Self.apiKey),
        verifier: verifier, logger: Self.logger)
      try await DatabaseHosts.withRunning(try DatabaseHosts.primary(url, logger: Self.logger)) {
        hosts in
        let ledger = try Ledger(
          hosts: hosts, configuration: ledgerConfiguration, logger: Self.logger)
        let replay = CustomerReplay(
          ledger: ledger, client: api, environment: .production, concurrency: 1,
          logger: Self.logger)
        let done = Mutex(0)
        let started = ContinuousClock.now
        async let replayed = replay.replay(.transactions(ids)) { report in
          done.withLock { $0 = report.customers }
        }
        while done.withLock({ $0 }) < ids.count / 8, ContinuousClock.now - started < .seconds(120) {
          try await Task.sleep(for: .milliseconds(20))
        }
        let before = done.withLock { $0 }
        Self.progress(fault, "injecting the fault into a replay with \(before) customers done")
        try await Self.inject(fault, into: formation)
        let first = try await replayed
        let after = done.withLock { $0 }
        Self.progress(
          fault,
          "replay: \(first.customers) customers, \(first.transactionsFetched) transactions, "
            + "\(first.appended) stored, \(first.rejected) rejected; \(after - before) "
            + "customers after the fault; primary switches \(hosts.status.switches)")
        #expect(after - before > 5, "the fault landed while the replay ran")
        #expect(first.rejected.isEmpty)
        #expect(first.appended > first.transactionsFetched / 2)
        #expect(hosts.status.switches >= 1)
        let second = try await replay.replay(.transactions(ids))
        #expect(second.transactionsFetched == 0 && second.appended == 0)
        #expect(second.rejected.isEmpty)
        // Every subscription as the App Store says it is.
        let time = store.lastSigned
        var compared = 0
        for customer in simulation.truth.customers {
          guard let token = customer.appAccountToken else { continue }
          for subscription in try await ledger.subscriptions(for: token, at: time.date) {
            let id = subscription.originalTransactionId
            #expect(
              subscription.status == simulation.truth.status(of: id, at: time)?.rawValue, "\(id)")
            compared += 1
          }
        }
        #expect(compared > 40)
      }
    }
    try await Self.waitHealthy(formation)
    try await formation.dropDatabase(name, logger: Self.logger)
  }

  /// A replica URL naming both nodes (`target_session_attrs=standby`) reads from the standby;
  /// after a planned switch it reads from the old primary, which rejoined as the standby, and
  /// never from the new primary while a standby answers.
  @Test(.enabled(if: FailoverFormation.faults([Fault.plannedFailover]).count == 1))
  func aReplicaURLFollowsTheStandby() async throws {
    let name = "failover_replica"
    let (formation, url) = try await Self.freshDatabase(name)
    var replicaURL = url
    replicaURL.targetSessionAttributes = .standby
    let primary = try DatabaseHosts.primary(url, logger: Self.logger)
    let replica = ReadReplica(
      name: replicaURL.address, hosts: DatabaseHosts.replica(replicaURL, logger: Self.logger))
    let replicas = ReadReplicas(
      primary: primary, replicas: [replica],
      settings: ReadReplicas.Settings(probeInterval: .milliseconds(200)), logger: Self.logger)
    try await DatabaseHosts.withRunning(primary) { primary in
      try await DatabaseHosts.withRunning(replica.hosts) { _ in
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { await replicas.monitor() }
          defer { group.cancelAll() }
          let first = try await Self.readOnTheStandby(replicas, within: .seconds(60))
          _ = try await primary.located(within: .seconds(60))
          let oldPrimary = try #require(primary.currentHost)
          #expect(first != oldPrimary, "the standby answers, not the primary")
          try await formation.ha("failover")
          try await Self.waitHealthy(formation)
          // Nothing is written: the recheck of the chosen host notices the switch.
          let switched = ContinuousClock.now + .seconds(15)
          while primary.currentHost != first, ContinuousClock.now < switched {
            _ = try? await primary.located(within: .seconds(5))
            try await Task.sleep(for: .milliseconds(100))
          }
          #expect(primary.currentHost == first, "the old standby is the primary")
          let second = try await Self.readOnTheStandby(
            replicas, within: .seconds(60), not: first)
          #expect(second == oldPrimary, "the old primary, a standby now, takes the reads")
          Self.progress(
            .plannedFailover,
            "replica reads moved from \(first) to \(second); primary \(oldPrimary) → \(first)")
        }
      }
    }
    try await formation.dropDatabase(name, logger: Self.logger)
  }

  /// The host (`127.0.0.1:port`) of the first read a replica serves from a standby, other
  /// than `excluded`.
  static func readOnTheStandby(
    _ replicas: ReadReplicas, within limit: Duration, not excluded: String? = nil
  ) async throws -> String {
    let deadline = ContinuousClock.now + limit
    var last = ""
    while ContinuousClock.now < deadline {
      if let answer = try? await replicas.read(
        account: nil, consistency: .readYourWrites,
        {
          client in
          try await client.query(
            "SELECT inet_server_port(), pg_is_in_recovery()", logger: Self.logger
          ) { rows in
            for try await (port, recovery) in rows.decode((Int, Bool).self) {
              return (port, recovery)
            }
            return (0, false)
          }
        })
      {
        let host = "127.0.0.1:\(answer.value.0)"
        last = "\(host) in recovery \(answer.value.1), from a replica \(answer.replica != nil)"
        if answer.replica != nil, answer.value.1, host != excluded { return host }
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw FailoverFormation.FormationError("no read from a standby within \(limit): \(last)")
  }

  struct Outcome {
    var sent = 0
    var undelivered = 0
    var stored = 0
    var missing: [String] = []
    var duplicates = 0
    var refundRequests = 0
    var answers = 0
    var answeredTwice: [String] = []
    var changes = 0
    var changeGaps: [Int64] = []
    var changesMissing: [String] = []
    var auditProblems: [String] = []
    var unavailable = 0.0
    var refused = 0
    var probes = 0
    var serverErrors = 0
    var switches = 0
    /// Answers sent again with the same body (after a record lost to the switch).
    var resent = 0
    /// Each refusal: seconds after the fault was injected, and the status (0: no answer).
    var refusals: [String] = []
  }

  /// The formation once healthy, and a new migrated database `name` on it.
  static func freshDatabase(_ name: String) async throws -> (FailoverFormation, DatabaseURL) {
    let formation = try #require(
      FailoverFormation.current,
      "scripts/test starts a pg_auto_failover formation (scripts/ha) and exports its URL")
    try await Self.waitHealthy(formation)
    try await formation.dropDatabase(name, logger: Self.logger)
    return (formation, try await formation.createDatabase(name, logger: Self.logger))
  }

  /// Waits for a primary that replicates synchronously to its standby: only then is every
  /// commit the webhook acknowledges on both nodes.
  static func waitHealthy(_ formation: FailoverFormation) async throws {
    try await formation.ha("wait-healthy", "180")
  }

  static func run(
    _ fault: Fault, round: Int, on url: DatabaseURL, formation: FailoverFormation
  ) async throws -> Outcome {
    let seed = UInt64(round * 10 + (Fault.allCases.firstIndex(of: fault) ?? 0))
    let simulation = Simulation(SimulationConfiguration(customers: 40, months: 12, seed: seed))
    let store = SimulatedAppStore(
      app: SimulatedApp(
        bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890, environment: .production),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    // Refunds asked for live (an hour after the year): their requests are answered by the
    // server's worker while the formation switches.
    store.advance(to: Timestamp(milliseconds: store.now.milliseconds + 3_600_000))
    let requested = store.refundCandidates(6).compactMap { store.requestRefund(of: $0) }
    #expect(!requested.isEmpty)
    let liveFrom = store.now
    // The worker's clock runs from the store's present at the wall clock's pace: a claim's
    // lease runs out while the store's own clock stands still.
    let (liveStart, liveWall) = (store.now.date, Date())
    let ledgerConfiguration = LedgerConfiguration(
      bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890, environments: [.production],
      trustedRoots: H.pki.trustedRoots, catalog: simulationCatalog,
      databaseTimeout: .seconds(5))
    let simulator = buildSimulatorApplication(
      store: store,
      configuration: SimulatorConfiguration(
        apiKeys: [apiKey.keyId: privateKey.publicKey], issuerId: apiKey.issuerId),
      logger: logger)
    let outcome = Mutex(Outcome())
    try await simulator.test(.live) { simulatorClient in
      let apiURL = "http://127.0.0.1:\(try #require(simulatorClient.port))"
      var configuration = ServerConfiguration(
        database: url, ledger: ledgerConfiguration, apiKeys: [H.apiKey])
      configuration.apps[0].appStoreAPI = AppStoreAPISettings(
        api: AppStoreServerAPIConfiguration(
          baseURL: apiURL, key: apiKey, maximumAttempts: 2, initialBackoff: .milliseconds(50)),
        verifier: VerifierConfiguration(
          trustedRoots: H.pki.trustedRoots, bundleId: SignedFixtures.bundleId,
          appAppleId: 1_234_567_890, environment: .production))
      configuration.apps[0].consumption = ConsumptionWorkerConfiguration(
        policy: policy, pollInterval: .milliseconds(200), lease: .seconds(20),
        initialBackoff: .milliseconds(200), maximumBackoff: .seconds(1),
        now: { liveStart.addingTimeInterval(Date().timeIntervalSince(liveWall)) })
      let server = try buildApplication(configuration: configuration, logger: logger)
      try await server.test(.ahc(.http)) { client in
        let delivered = try await deliver(
          store, fault: fault, formation: formation, client: client, url: url,
          ledgerConfiguration: ledgerConfiguration, liveFrom: liveFrom)
        outcome.withLock { $0 = delivered }
      }
    }
    return outcome.withLock { $0 }
  }

  /// Delivers the year while injecting `fault`, then settles and checks.
  static func deliver(
    _ store: SimulatedAppStore, fault: Fault, formation: FailoverFormation,
    client: any TestClientProtocol, url: DatabaseURL, ledgerConfiguration: LedgerConfiguration,
    liveFrom: Timestamp
  ) async throws -> Outcome {
    let port = try #require(client.port)
    let webhook = "http://127.0.0.1:\(port)/v1/notifications/appstore"
    // Apple's Production schedule (1, 12, 24, 48, 72 hours) with an hour of 500 ms: five
    // retries over 78 s, longer than pg_auto_failover takes to replace a lost primary.
    let deliverer = NotificationDeliverer(
      store: store, webhookURL: webhook, hour: .milliseconds(500),
      faults: DeliveryFaults(duplicateFraction: 0.1, reorder: true, seed: 9), concurrency: 4,
      logger: logger)
    let probe = WebhookProbe()
    let total = store.notifications().count
    let probeBody = try #require(store.notifications().first?.signedPayload)

    async let delivered: Void = deliverer.deliverPending()
    let probeRequest = H.webhookBody(probeBody)
    let probing = Task { await probe.run(client: client, body: probeRequest) }
    // The fault lands with a third of the year delivered.
    let started = ContinuousClock.now
    while store.notifications().filter(\.delivered).count < total / 3,
      ContinuousClock.now - started < .seconds(120)
    {
      try await Task.sleep(for: .milliseconds(20))
    }
    let injected = ContinuousClock.now
    Self.progress(fault, "injecting the fault with \(total / 3) of \(total) delivered")
    try await inject(fault, into: formation)
    Self.progress(fault, "the formation has a primary again")
    await delivered
    Self.progress(fault, "Apple's deliveries and retries are done")
    // The worker answers the refund requests; Apple's decisions reach the webhook too. Each
    // step has its own deadline, so a step that never returns fails the round and names
    // itself instead of holding the suite until its timeout.
    let settling = LastStep()
    do {
      try await withTimeout(.seconds(240)) {
        try await DatabaseHosts.withRunning(try DatabaseHosts.primary(url, logger: logger)) {
          hosts in
          let ledger = try Ledger(
            hosts: hosts, configuration: ledgerConfiguration, logger: logger)
          let deadline = ContinuousClock.now + .seconds(120)
          while ContinuousClock.now < deadline {
            settling.set("delivering what Apple has pending")
            await deliverer.deliverPending()
            settling.set("reading the refund requests' metrics")
            let metrics = try? await withTimeout(.seconds(20)) {
              try await ConsumptionRequests(ledger: ledger).metrics()
            }
            let undelivered = store.notifications().filter { !$0.delivered }.count
            settling.set(
              "refund requests pending \(metrics.map { String($0.pending) } ?? "unread"), "
                + "\(undelivered) notifications undelivered")
            if metrics?.pending == 0, undelivered == 0 { break }
            try await Task.sleep(for: .milliseconds(200))
          }
          settling.set("closing the settling connection pool after: \(settling.value)")
        }
      }
    } catch let error as TimeoutError {
      let last = settling.value
      Self.progress(fault, "settling did not finish in \(error.limit); last step: \(last)")
      probe.stop()
      throw error
    }
    Self.progress(fault, "settled (\(settling.value))")
    probe.stop()
    // A probe waits at most 15 s for its answer, so the probe ends within that of stopping.
    try await withTimeout(.seconds(30)) { await probing.value }
    // What the server saw of the formation, as an operator reads it.
    let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
    #expect(metrics.contains("storeledger_database_primary_switches_total"))
    #expect(
      metrics.split(separator: "\n").filter {
        $0.hasPrefix("storeledger_database_primary{") && $0.hasSuffix(" 1")
      }.count == 1, "one host is the primary in /metrics")
    let health = try H.value(try await client.execute(uri: "/health", method: .get))
    let switches: Int =
      if case .number(let count)? = health["primaries"]?.array?.first?["switches"] {
        Int(count)
      } else { -1 }

    var outcome = Outcome()
    let notifications = store.notifications()
    outcome.sent = notifications.count
    outcome.undelivered = notifications.filter { !$0.delivered }.count
    let (seen, refused, serverErrors, unavailable) = probe.summary()
    (outcome.probes, outcome.refused, outcome.serverErrors, outcome.unavailable) =
      (seen, refused, serverErrors, unavailable)
    outcome.refusals = probe.refusals(since: injected)
    // A worker that lost its record after sending sends the same body again once its lease
    // ends (a PUT: Apple keeps one answer). Two different bodies for one request would count
    // twice.
    let answers = Dictionary(grouping: store.consumptionAnswers(), by: \.transactionId)
    outcome.answers = answers.count
    outcome.answeredTwice = answers.filter { Set($0.value.map(\.information)).count > 1 }.map(\.key)
    outcome.resent = answers.values.map { $0.count - 1 }.reduce(0, +)
    // The requests of the simulated year reached the webhook with their twelve hours gone:
    // the worker closes them as expired. The live ones are answered.
    outcome.refundRequests =
      notifications.filter { $0.type == .consumptionRequest && $0.sentAt >= liveFrom }.count

    let counted = outcome
    return try await DatabaseHosts.withRunning(try DatabaseHosts.primary(url, logger: logger)) {
      hosts in
      var outcome = counted
      let client = try await hosts.located(within: .seconds(60))
      let keys = try await client.query(
        """
        SELECT idempotency_key FROM storeledger.events
        WHERE idempotency_key LIKE 'asn2:%' OR idempotency_key LIKE 'unrouted:%'
        """, logger: logger
      ) { rows in
        var keys: [String] = []
        for try await key in rows.decode(String.self) { keys.append(key) }
        return keys
      }
      outcome.stored = Set(keys).count
      outcome.duplicates = keys.count - Set(keys).count
      // A notification that names no app (GADGET_RECALL) is kept as unrouted evidence.
      let stored = Set(keys.map { $0.replacingOccurrences(of: "unrouted:", with: "asn2:") })
      outcome.missing = notifications.filter { !stored.contains("asn2:\($0.uuid)") }.map {
        "\($0.uuid) \($0.type.rawValue) attempts \($0.attempts.map { $0.sendAttemptResult?.rawValue ?? "-" })"
      }

      let ledger = try Ledger(hosts: hosts, configuration: ledgerConfiguration, logger: logger)
      let feed = ChangeFeedReader(ledger: ledger)
      // The server's projector catches up with the log before the feed is read.
      try await waitForProjection(ledger, client: client)
      var positions: [Int64] = []
      var byAccount: [String: Int] = [:]
      var after: Int64 = 0
      while true {
        let page = try await feed.changes(after: after, limit: 1000, consistency: .exact)
        guard let last = page.last else { break }
        positions += page.map(\.position)
        for change in page { byAccount[change.appAccountToken, default: 0] += 1 }
        after = last.position
      }
      outcome.changes = positions.count
      outcome.changeGaps = zip(positions, positions.dropFirst()).compactMap {
        $1 == $0 + 1 ? nil : $0 + 1
      }
      if let first = positions.first, first != 1 { outcome.changeGaps.append(1) }
      let now = Date()
      for token in byAccount.keys.sorted() where !token.isEmpty {
        let derived = try await feed.derivedFromLog(of: token, through: now)
        if derived.count != byAccount[token] { outcome.changesMissing.append(token) }
      }
      let report = try await LedgerMaintenance(ledger: ledger).audit(concurrency: 2)
      outcome.auditProblems = report.problems.map { "\($0)" }
      outcome.switches = switches
      return outcome
    }
  }

  static func progress(_ fault: Fault, _ what: String) {
    print("failover \(fault): \(Date().formatted(.iso8601)) \(what)")
  }

  /// Waits until the account projector's checkpoint is at the end of the log.
  static func waitForProjection(_ ledger: Ledger, client: PostgresClient) async throws {
    let deadline = ContinuousClock.now + .seconds(120)
    while ContinuousClock.now < deadline {
      let behind = try await client.query(
        """
        SELECT count(*) FROM storeledger.account_views WHERE projected_changes <> changes
        """, logger: logger
      ) { rows in
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
      }
      if behind == 0 { return }
      try await Task.sleep(for: .milliseconds(100))
    }
  }

  /// Injects `fault` and returns once the formation has a primary again (for a stopped
  /// standby: once the primary accepts writes without it), with the lost node started again.
  static func inject(_ fault: Fault, into formation: FailoverFormation) async throws {
    switch fault {
    case .plannedFailover:
      try await formation.ha("failover")
    case .killedPrimary:
      let killed = try await formation.ha("kill-primary")
      try await formation.wait(for: "a new primary", within: .seconds(120)) { states in
        states.contains {
          $0.node != killed && ["wait_primary", "primary"].contains($0.reported)
            && $0.reported == $0.assigned
        }
      }
      try await formation.ha("start-node", killed)
    case .stoppedStandby:
      let stopped = try await formation.ha("stop-standby")
      try await formation.wait(for: "a primary without its standby", within: .seconds(120)) {
        states in
        states.contains { $0.node != stopped && $0.reported == "wait_primary" }
      }
      try await formation.ha("start-node", stopped)
    }
  }

  static let simulationCatalog = SimulatedProducts.catalog
}

/// The step a round last reached, for the message that says where it stopped.
final class LastStep: Sendable {
  private let step = Mutex("nothing yet")
  var value: String { step.withLock { $0 } }
  func set(_ value: String) { step.withLock { $0 = value } }
}

/// Posts one already-known notification to the webhook every 50 ms (after the previous answer)
/// and keeps what it was answered: the webhook's unavailability is the time from sending the
/// first probe it refused to sending the last.
final class WebhookProbe: Sendable {
  private struct State {
    var running = true
    var answers: [(at: ContinuousClock.Instant, status: Int)] = []
  }

  private let state = Mutex(State())

  func run(client: any TestClientProtocol, body: ByteBuffer) async {
    while state.withLock({ $0.running }) {
      // A probe with no answer within 15 s counts as a refusal (status 0). Each answer is
      // kept at the moment its request was sent: a refusal can take the database timeout.
      let sent = ContinuousClock.now
      let status =
        (try? await withTimeout(.seconds(15)) {
          try await client.execute(
            uri: "/v1/notifications/appstore", method: .post, body: body
          ).status.code
        }) ?? 0
      state.withLock { $0.answers.append((sent, status)) }
      try? await Task.sleep(for: .milliseconds(50))
    }
  }

  func stop() { state.withLock { $0.running = false } }

  /// Each refusal as `+seconds:status`, after `start`.
  func refusals(since start: ContinuousClock.Instant) -> [String] {
    state.withLock { $0.answers }.filter { $0.status != 200 }.map {
      let offset = $0.at - start
      let seconds =
        Double(offset.components.seconds) + Double(offset.components.attoseconds) / 1e18
      return String(format: "%+.1f:%d", seconds, $0.status)
    }
  }

  /// Probes sent, refused (not 200), answered 500, and seconds from sending the first probe
  /// that was refused to sending the last.
  func summary() -> (Int, Int, Int, Double) {
    let answers = state.withLock { $0.answers }
    let refused = answers.filter { $0.status != 200 }
    let span =
      refused.first.flatMap { first in refused.last.map { $0.at - first.at } } ?? .zero
    let seconds =
      Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
    return (answers.count, refused.count, answers.filter { $0.status == 500 }.count, seconds)
  }
}
