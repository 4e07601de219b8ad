import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Runs every scenario in projections/scenarios: the fold must match its `expect`, and must
/// not depend on the order of its events.
@Suite struct GoldenScenarioTests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("projections/scenarios")

  static let files: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    .filter { $0.hasSuffix(".json") }.sorted()

  static func load(_ file: String) throws -> Scenario {
    try Scenario.decode(Data(contentsOf: directory.appendingPathComponent(file)))
  }

  @Test func thereAreAtLeastThirtyScenarios() {
    #expect(Self.files.count >= 30)
  }

  @Test(arguments: files) func scenarioMatchesItsExpectation(file: String) throws {
    let scenario = try Self.load(file)
    #expect(
      scenario.expect != nil || scenario.expectMetrics != nil, "\(file) has no expectation")
    let mismatches = try scenario.mismatches(of: scenario.snapshot())
    #expect(mismatches.isEmpty, "\(file): \(mismatches.joined(separator: "; "))")
    #expect(scenario.changeMismatches() == [], "\(file)")
    #expect(scenario.historyMismatches() == [], "\(file)")
    let metrics = try scenario.metricsMismatches()
    #expect(metrics.isEmpty, "\(file): \(metrics.joined(separator: "; "))")
  }

  /// The status history derives only the subscriptions' statuses (its derivation's
  /// `.statuses` scope); each of every scenario's accounts gets exactly the status changes
  /// that deriving everything gives, in the feed's order and in Apple's (events first).
  @Test(arguments: files) func theStatusScopeDerivesTheStatusChangesOfEverything(file: String)
    throws
  {
    let scenario = try Self.load(file)
    let view = scenario.view()
    let tokens = Set(
      view.subscriptions(at: scenario.asOf).compactMap(\.appAccountToken)
        + [scenario.changesOf, scenario.historyOf].compactMap { $0 })
    let statusKinds: Set<AccountChange.Kind> = [
      .subscriptionStatusChanged, .billingProblemStarted, .billingProblemResolved,
      .gracePeriodStarted, .gracePeriodEnded,
    ]
    for token in tokens.sorted() {
      for eventFirst in [false, true] {
        func derive(_ scope: ChangeDerivation.Scope) -> [DerivedChange] {
          var derivation = ChangeDerivation(
            token: token, catalog: scenario.catalog ?? .empty, options: view.options, scope: scope)
          var derived = scenario.events.flatMap { event in
            derivation.apply(
              event, at: event.recordedAt ?? event.effectiveDate ?? scenario.asOf,
              eventFirst: eventFirst)
          }
          derived += derivation.advance(to: scenario.asOf)
          return derived.filter { statusKinds.contains($0.change.kind) }
        }
        let everything = derive(.everything)
        #expect(derive(.statuses) == everything, "\(file), \(token)")
      }
    }
    #expect(!tokens.isEmpty || scenario.snapshot().subscriptions.isEmpty, "\(file)")
  }

  /// Metrics do not depend on the order notifications arrived in either (nor on duplicates).
  @Test(arguments: files.filter { $0.contains("-revenue-") })
  func metricsIgnoreArrivalOrder(file: String) throws {
    var scenario = try Self.load(file)
    let expected = try scenario.metricsReport()
    let expectedDiff = try scenario.metricsDiff()
    #expect(expected != nil)
    var random = SeededRandom(seed: UInt64(file.utf8.count))
    let original = scenario.events
    for order in [original.reversed(), original.shuffled(using: &random), original + original] {
      scenario.events = Array(order)
      #expect(try scenario.metricsReport() == expected, "\(file)")
      #expect(try scenario.metricsDiff() == expectedDiff, "\(file)")
    }
  }

  /// Every revenue rule the issue's list names has a golden scenario.
  @Test func revenueScenariosCoverTheListedRules() {
    let names = Self.files.filter { $0.contains("-revenue-") }
    for rule in [
      "trial-converted", "trial-cancelled", "upgrade-mid-period", "downgrade-at-renewal",
      "prorated-refund", "refund-reversed", "multiseat-seat-addition", "family-shared-counted-once",
      "late-notification-moves-a-past-figure",
    ] {
      #expect(names.contains { $0.contains(rule) }, "no golden scenario for \(rule)")
    }
  }

  /// Every rule of the change table (C1–C14) is shown by some golden scenario's changes.
  @Test func changeScenariosCoverEveryAccountChangeRule() throws {
    let found = Set(
      try Self.files.flatMap { try Self.load($0).expectChanges ?? [] }.map(\.type))
    let derivable = AccountChange.Kind.allCases.filter { !$0.rawValue.hasPrefix("consumption.") }
    #expect(Set(derivable.map(\.rawValue)).subtracting(found) == [])
  }

  @Test(arguments: files) func scenarioIgnoresArrivalOrder(file: String) throws {
    var scenario = try Self.load(file)
    let expected = scenario.snapshot()
    var random = SeededRandom(seed: UInt64(file.utf8.count))
    let original = scenario.events
    for order in [original.reversed(), original.shuffled(using: &random), original + original] {
      scenario.events = Array(order)
      #expect(scenario.snapshot() == expected, "\(file)")
    }
  }

  /// Every notificationType/subtype pair of reference §3 appears in some scenario.
  @Test func scenariosCoverEveryNotificationTypeAndSubtype() throws {
    let pairs = [
      "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW", "DID_RENEW/BILLING_RECOVERY",
      "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE",
      "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
      "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "OFFER_REDEEMED", "OFFER_REDEEMED/UPGRADE",
      "OFFER_REDEEMED/DOWNGRADE", "DID_FAIL_TO_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD",
      "GRACE_PERIOD_EXPIRED", "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY",
      "EXPIRED/PRICE_INCREASE", "EXPIRED/PRODUCT_NOT_FOR_SALE", "EXPIRED", "PRICE_INCREASE/PENDING",
      "PRICE_INCREASE/ACCEPTED", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED",
      "CONSUMPTION_REQUEST", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION/SUMMARY",
      "RENEWAL_EXTENSION/FAILURE", "REVOKE", "ONE_TIME_CHARGE", "TEST",
      "EXTERNAL_PURCHASE_TOKEN/UNREPORTED", "EXTERNAL_PURCHASE_TOKEN/CREATED",
      "EXTERNAL_PURCHASE_TOKEN/ACTIVE_TOKEN_REMINDER", "RESCIND_CONSENT", "METADATA_UPDATE",
      "MIGRATION", "PRICE_CHANGE", "UNCLAIM_SEATS", "REFUND/SEATS",
      "DID_CHANGE_RENEWAL_PREF/INCREASE_QUANTITY", "DID_CHANGE_RENEWAL_PREF/DECREASE_QUANTITY",
    ]
    var seen = Set<String>()
    for file in Self.files {
      for event in try Self.load(file).events {
        if let notification = event.reference.notification { seen.insert(notification) }
      }
    }
    #expect(Set(pairs).subtracting(seen).sorted() == [])
  }

  @Test func malformedScenarioNamesTheEventIndexAndField() throws {
    let json = """
      {"name": "bad", "asOf": 0, "events": [
        {"debit": {"id": "d", "appAccountToken": "a", "productId": "p", "quantity": 1}},
        {"transaction": {"transactionId": "1", "expiresDate": "soon"}}]}
      """
    let error = #expect(throws: ScenarioError.self) { try Scenario.decode(Data(json.utf8)) }
    #expect(error?.message == "events[1].transaction.expiresDate: expected a number")
    let twoKinds = #"{"name": "x", "asOf": 0, "events": [{"debit": {}, "link": {}}]}"#
    let second = #expect(throws: ScenarioError.self) { try Scenario.decode(Data(twoKinds.utf8)) }
    #expect(second?.message.hasPrefix("events[0]: an event needs exactly one of") == true)
    let missing = #"{"name": "x", "events": []}"#
    let third = #expect(throws: ScenarioError.self) { try Scenario.decode(Data(missing.utf8)) }
    #expect(third?.message == "asOf: missing")
  }

  @Test func expectationMismatchesAreReportedWithTheirPath() throws {
    let json = """
      {"name": "m", "asOf": 1767312000000, "events": [
        {"transaction": {"transactionId": "1", "productId": "p", "type": "Non-Consumable",
                         "purchaseDate": 1767225600000, "signedDate": 1767225600000}}],
       "expect": {"purchases": [{"transactionId": "1", "entitled": false}]}}
      """
    let scenario = try Scenario.decode(Data(json.utf8))
    #expect(
      try scenario.mismatches(of: scenario.snapshot()) == [
        "purchases[0].entitled: true, expected false"
      ])
  }
}
