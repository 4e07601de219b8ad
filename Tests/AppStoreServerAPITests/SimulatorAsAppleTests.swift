import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The simulator behaves as Apple documents it where the ledger's answers depend on it:
/// recovery inside billing grace keeps the billing cycle (reference §8.4), a subscription is
/// extended at most twice in 365 days, and a simulated run never signs in the future.
@Suite struct SimulatorAsAppleTests {
  typealias H = SimulatorHarness

  @Test func recoveryInsideGraceKeepsTheBillingCycle() async throws {
    let configuration = SimulationConfiguration(customers: 600, months: 12, seed: 41)
    let (_, notifications) = try await SimulationTests.run(Simulation(configuration))
    // Per chain, in signing order: the grace a failure opened and the period it lapsed.
    var lapsed: [String: (expires: Int64, graceEnds: Int64?)] = [:]
    var (insideGrace, afterGrace) = (0, 0)
    for notification in notifications.sorted(by: {
      ($0.payload.signedDate?.milliseconds ?? 0) < ($1.payload.signedDate?.milliseconds ?? 0)
    }) {
      guard let transaction = notification.transaction?.payload,
        let id = transaction.originalTransactionId
      else { continue }
      switch (notification.payload.notificationType, notification.payload.subtype) {
      case (.didFailToRenew?, _):
        lapsed[id] = (
          transaction.expiresDate!.milliseconds,
          notification.renewalInfo?.payload.gracePeriodExpiresDate?.milliseconds
        )
      case (.didRenew?, .billingRecovery?):
        guard let failure = lapsed.removeValue(forKey: id) else { continue }
        let bought = transaction.purchaseDate!.milliseconds
        let period = SimulatedProducts.subscription(transaction.productId!)!.period
        if let graceEnds = failure.graceEnds, bought < graceEnds {
          insideGrace += 1
          #expect(transaction.expiresDate!.milliseconds == failure.expires + period, "\(id)")
        } else {
          afterGrace += 1
          #expect(transaction.expiresDate!.milliseconds == bought + period, "\(id)")
        }
      default: break
      }
    }
    print("billing recoveries: \(insideGrace) inside grace, \(afterGrace) after it")
    #expect(insideGrace > 5 && afterGrace > 5)
  }

  @Test func aSubscriptionIsExtendedAtMostTwiceIn365Days() async throws {
    let configuration = SimulationConfiguration(customers: 1_000, months: 24, seed: 43)
    let (_, notifications) = try await SimulationTests.run(Simulation(configuration))
    var extended: [String: [Int64]] = [:]
    for notification in notifications
    where notification.payload.notificationType == .renewalExtended {
      guard let id = notification.transaction?.payload.originalTransactionId else { continue }
      extended[id, default: []].append(notification.payload.signedDate!.milliseconds)
    }
    let year = 365 * SimulationConfiguration.day
    var most = 0
    for times in extended.values {
      for time in times {
        most = max(most, times.filter { $0 > time - year && $0 <= time }.count)
      }
    }
    print(
      "extensions: \(extended.values.map(\.count).reduce(0, +)) over \(extended.count) chains, at most \(most) in 365 days"
    )
    #expect(!extended.isEmpty)
    #expect(most <= 2)
  }

  /// A renewal info whose next renewal is multiseat carries `multiSeatInfo` (Notifications
  /// 2.23): price tiers whose quantities add up to the seats it renews.
  @Test func multiseatRenewalInfosCarryTheirPriceTiers() async throws {
    let configuration = SimulationConfiguration(customers: 600, months: 12, seed: 41)
    let (_, notifications) = try await SimulationTests.run(Simulation(configuration))
    var multiseat = 0
    for notification in notifications {
      guard let renewal = notification.renewalInfo?.payload,
        let seats = renewal.renewalQuantity
      else { continue }
      multiseat += 1
      let tiers = renewal.multiSeatInfo?.renewalPriceTiers ?? []
      #expect(
        tiers.reduce(0) { $0 + ($1.tierQuantity ?? 0) } == seats,
        "\(renewal.originalTransactionId ?? "?"): \(tiers) for \(seats) seats")
      #expect(tiers.allSatisfy { ($0.tierPrice ?? 0) > 0 })
    }
    #expect(multiseat > 10, "\(multiseat) multiseat renewal infos")
  }

  @Test func aSimulatedRunNeverPassesThePresent() {
    let now = Timestamp(milliseconds: 1_796_472_000_000)  // 2026-12-05T12:00:00Z
    for months in [1, 3, 12, 24] {
      let start = SimulationConfiguration.start(months: months, endingBy: now)
      let configuration = SimulationConfiguration(
        customers: 1, months: months, seed: 1, start: start)
      #expect(configuration.end <= now, "\(months) months")
      #expect(start <= SimulationConfiguration.defaultStart)
    }
    // A short run still starts on the documented default day.
    #expect(
      SimulationConfiguration.start(months: 3, endingBy: now)
        == SimulationConfiguration.defaultStart)
  }
}
