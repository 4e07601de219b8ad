import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// The demo's last stages: waiting for the changes and relays to land, summing up and
/// comparing with the simulator's truth, and the helpers every stage uses.
extension DemoWorkflow {
  /// Every account's state at the simulation's end, folded from the log.
  /// Waits until the receiver has every change the feed holds (or a minute has passed).
  func awaitChanges(
    ledger: Ledger, receiver: DemoChangeReceiver, into summary: inout DemoSummary
  ) async throws {
    let (head, seconds) = try await timed("changes") { () async throws -> Int64 in
      let deadline = ContinuousClock.now + .seconds(60)
      var head = try await ChangeFeedReader(ledger: ledger).head()
      while ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(250))
        let now = try await ChangeFeedReader(ledger: ledger).head()
        if now == head, receiver.delivered >= now { break }
        head = now
      }
      return head
    }
    summary.changes = .init(
      derived: Int(head), delivered: receiver.delivered, requests: receiver.requests,
      badSignatures: receiver.badSignatures)
    record(
      "changes", seconds,
      "\(Int(head).grouped) changes derived, \(receiver.delivered.grouped) delivered to the "
        + "backend's webhook, signatures checked", into: &summary)
  }

  /// Waits until the staging backend has every notification the ledger stored (or a minute
  /// has passed), then reads its attempts back from the log.
  func awaitRelays(
    ledger: Ledger, receiver: DemoChangeReceiver, into summary: inout DemoSummary
  ) async throws {
    let relays = Relays(ledger: ledger)
    let name = summary.relayed.target
    let (counts, seconds) = try await timed("relaying") { () async throws -> RelayTargetCounts? in
      let deadline = ContinuousClock.now + .seconds(60)
      while true {
        let counts = try await relays.targets().first { $0.0.name == name }?.1
        let done = counts.map { $0.retrying + $0.waiting == 0 && $0.delivered > 0 } ?? true
        if done || ContinuousClock.now >= deadline { return counts }
        try await Task.sleep(for: .milliseconds(250))
      }
    }
    var logged = 0
    var before: Int64? = nil
    repeat {
      let page = try await relays.attempts(of: name, before: before, limit: 1000)
      logged += page.count
      before = page.count == 1000 ? page.last?.streamVersion : nil
    } while before != nil
    let target = receiver.relayed
    summary.relayed.delivered = counts?.delivered ?? 0
    summary.relayed.accepted = target.accepted
    summary.relayed.requests = target.requests
    summary.relayed.failed = target.refused
    summary.relayed.pending = (counts?.retrying ?? 0) + (counts?.waiting ?? 0)
    summary.relayed.dead = counts?.dead ?? 0
    summary.relayed.attemptsInLog = logged
    record(
      "relaying", seconds,
      "\(summary.relayed.delivered.grouped) notifications relayed to staging "
        + "(\(target.refused.grouped) of \(target.requests.grouped) requests failed and were "
        + "retried; \(logged.grouped) attempts in the log)", into: &summary)
  }

  func sumUp(ledger: Ledger, into summary: inout DemoSummary) async throws {
    let statistics = try await SupportQueries(ledger: ledger).statistics()
    summary.events = statistics.events
    summary.streams = statistics.streams
    let asOf = Timestamp(milliseconds: summary.asOf)
    var after = ""
    let customers = self.customers
    while true {
      let page = try await SupportQueries(ledger: ledger).accountTokens(after: after, limit: 500)
      guard let last = page.last else { break }
      for token in page {
        // The account's own part: a seat member's view also folds the group subscription it
        // holds a seat of, which is the purchaser's.
        let snapshot = try await ledger.view(for: token).snapshot(at: asOf).part(for: token)
        summary.add(snapshot)
        if let customer = customers[token] { compare(snapshot, with: customer, into: &summary) }
      }
      after = last
    }
  }

  /// Account token → the simulator's customer: tokens the app set, and those given to
  /// customers migrated from receipts.
  var customers: [String: String] {
    Dictionary(
      simulation.truth.customers.compactMap { customer in
        customer.appAccountToken.map { ($0, customer.id) }
      }, uniquingKeysWith: { first, _ in first }
    ).merging(migrated.value, uniquingKeysWith: { first, _ in first })
  }

  /// One account's answers against the simulator's truth at the end: every subscription's
  /// status and product, and the entitlements (consumables' follow the balances, compared
  /// in the consumables table).
  func compare(
    _ snapshot: LedgerSnapshot, with customer: String, into summary: inout DemoSummary
  ) {
    let truth = simulation.truth
    let asOf = snapshot.asOf
    var found: [String] = []
    let chains = truth.owners.filter { $0.value == customer }.keys
      .filter { truth.product(of: $0, at: asOf) != nil }.sorted()
    for id in chains {
      let engine = snapshot.subscriptions.first { $0.originalTransactionId == id }
      let status = truth.status(of: id, at: asOf)?.rawValue
      let product = truth.product(of: id, at: asOf)?.id
      if engine?.status != status || engine?.productId != product {
        found.append(
          "\(id): status \(engine.map { "\($0.status)" } ?? "none") product "
            + "\(engine?.productId ?? "none"), truth \(status.map(String.init) ?? "none") \(product ?? "none")"
        )
      }
    }
    let entitled = Set(
      snapshot.entitlements.filter { $0.active && $0.entitlement != "gems" }.map(\.entitlement))
    let expected = truth.entitlements(ofCustomer: customer, at: asOf)
    if entitled != expected {
      found.append(
        "\(customer): entitlements \(entitled.sorted()), truth \(expected.sorted())")
    }
    summary.truth.accounts += 1
    if found.isEmpty { summary.truth.agree += 1 }
    summary.truth.disagreements += found
  }

  func apiClient(port: Int) throws -> AppStoreServerAPIClient {
    AppStoreServerAPIClient(
      configuration: AppStoreServerAPIConfiguration(
        baseURL: "http://127.0.0.1:\(port)", key: apiKey),
      verifier: try SignedDataVerifier(
        configuration: VerifierConfiguration(
          trustedRoots: pki.trustedRoots, bundleId: DemoRun.bundleId,
          appAppleId: DemoRun.appAppleId, environment: .sandbox, validationTime: .now)),
      logger: logger)
  }

  /// Runs one stage behind a waiting line; returns its result and its seconds.
  func timed<Result>(_ name: String, _ body: () async throws -> Result) async throws
    -> (Result, Double)
  {
    let bar = ProgressBar(
      name.padding(toLength: 11, withPad: " ", startingAt: 0), enabled: !settings.quiet)
    bar.update(0, of: nil, "…", force: true)
    let started = ContinuousClock.now
    let result = try await body()
    bar.finish()
    return (result, (ContinuousClock.now - started).seconds)
  }

  func record(
    _ name: String, _ seconds: Double, _ detail: String, into summary: inout DemoSummary
  ) {
    summary.stages.append(.init(name: name, seconds: seconds, detail: detail))
    if !settings.quiet {
      say(
        "✓ \(name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(detail) "
          + String(format: "(%.1f s)", seconds))
    }
  }
}
