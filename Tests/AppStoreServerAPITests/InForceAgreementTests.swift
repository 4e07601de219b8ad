import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// One truth for what is in force: for every subscription of a simulated year, delivered with
/// Apple's faults (lost, duplicated, reordered), before and after the replay repairs it, at
/// every day boundary, the transaction the status fold holds in force (rules S2 and S3:
/// active, or in billing grace) is the one the revenue timeline holds in force, grace in
/// both or in neither, billing retry (S4) in both or in neither, and an explanation cites no
/// event signed after the moment it explains.
@Suite struct InForceAgreementTests {
  typealias H = SimulatorHarness
  static let customers =
    Int(ProcessInfo.processInfo.environment["DIFFERENTIAL_CUSTOMERS"] ?? "") ?? 2_000

  struct Tally {
    var compared = 0
    var appleReported = 0
    var inGrace = 0
    var inBillingRetry = 0
    var explanations = 0
    var disagreements: [String] = []
  }

  /// A year of its own, and the demo's (`storeledger demo`: seed 7, twelve 30-day months
  /// ending on a settled day; here the day is fixed, so the run is the same every time).
  static let years: [(String, SimulationConfiguration)] = [
    ("a simulated year", SimulationConfiguration(customers: customers, months: 12, seed: 5_555)),
    (
      "the demo's year",
      SimulationConfiguration(
        customers: customers, months: 12, seed: 7,
        start: Timestamp(
          milliseconds: 1_796_428_800_000 - 12 * SimulationConfiguration.period))
    ),
  ]

  @Test(arguments: 0..<2) func statusAndRevenueHoldTheSameTransactionEveryDay(year: Int)
    async throws
  {
    let (name, configuration) = Self.years[year]
    let (simulation, store) = H.year(configuration)
    let verifier = try H.verifier()
    var random = SeededRandom(seed: 91)
    var delivered = try await DifferentialTruthTests.deliveries(of: store, verifier, &random)
      .delivered
    delivered.shuffle(using: &random)
    let repaired = try await DifferentialTruthTests.replay(simulation.truth, store, verifier)
    for (label, events) in [("before replay", delivered), ("after replay", delivered + repaired)] {
      let tally = Self.compare(events, configuration)
      print(
        "in force (\(name), \(label)): \(Self.customers) customers, \(tally.compared) chain-days compared "
          + "(\(tally.appleReported) rest on Apple's report, \(tally.inGrace) in grace, "
          + "\(tally.inBillingRetry) in billing retry), \(tally.explanations) explanations "
          + "checked, \(tally.disagreements.count) disagreements")
      for disagreement in tally.disagreements.prefix(20) { print("  \(disagreement)") }
      #expect(tally.compared > Self.customers * 250)
      #expect(tally.explanations > Self.customers * 5)
      #expect(tally.disagreements.isEmpty, "\(label): \(tally.disagreements.count) disagreements")
      #expect(tally.appleReported < tally.compared / 10)
    }
  }

  /// Every chain of every purchaser at every day boundary of the year.
  static func compare(_ events: [LedgerEvent], _ configuration: SimulationConfiguration) -> Tally {
    var byChain: [String: [LedgerEvent]] = [:]
    for event in events {
      guard let id = DifferentialTruthTests.chain(of: event) else { continue }
      byChain[id, default: []].append(event)
    }
    var tally = Tally()
    let day: Int64 = 86_400_000
    let first = MetricsCalendar.start(of: .day, holding: configuration.start).milliseconds + day
    for (id, events) in byChain.sorted(by: { $0.key < $1.key }) {
      let state = LedgerState.fold(events)
      let view = LedgerView(state, catalog: SimulatedProducts.catalog)
      let explainer = AccountExplainer(events: events, catalog: SimulatedProducts.catalog)
      let timelines = RevenueTimeline.timelines(
        of: state, horizon: configuration.end, commission: CommissionPolicy())
      // Access through family sharing is not a sale (G5): no timeline to compare with.
      guard let timeline = timelines.first(where: { $0.originalTransactionId == id }),
        timeline.isSubscription
      else { continue }
      var time = first
      var index = 0
      while time < configuration.end.milliseconds {
        defer {
          time += day
          index += 1
        }
        let instant = Timestamp(milliseconds: time)
        guard let status = view.subscription(id, at: instant) else { continue }
        tally.compared += 1
        if status.rule == StatusRule.appleReported.rawValue {
          tally.appleReported += 1
          continue
        }
        let grace = status.rule == StatusRule.gracePeriod.rawValue
        let retry = status.rule == StatusRule.billingRetry.rawValue
        if grace { tally.inGrace += 1 }
        if retry { tally.inBillingRetry += 1 }
        let folded =
          status.rule == StatusRule.active.rawValue || grace ? status.transactionId : nil
        let segment = timeline.segments.first { $0.holds(instant) }
        let retrying = timeline.billingRetry.first { $0.holds(instant) }
        if folded != segment?.transactionId || grace != (segment?.inGrace ?? false)
          || retry != (retrying != nil)
        {
          tally.disagreements.append(
            "\(id) at \(instant): status fold \(folded ?? "none") (\(status.rule)), revenue \(segment?.transactionId ?? "none") (grace \(segment?.inGrace ?? false), retry \(retrying != nil))"
          )
        }
        // The explanation an agent reads: what was signed by then decides; anything signed
        // later is cited apart (signedLater), never among the deciding events.
        if index % 14 == 0, let why = explainer.explainSubscription(id, at: instant) {
          tally.explanations += 1
          for cited in why.events where (cited.signedDate ?? instant) > instant {
            tally.disagreements.append(
              "\(id) at \(instant): explanation cites \(cited.eventType) signed \(cited.signedDate!)"
            )
          }
        }
      }
    }
    return tally
  }
}
