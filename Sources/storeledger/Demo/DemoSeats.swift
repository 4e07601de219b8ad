import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore

/// The demo's group subscriptions with developer-hosted invitations, after the simulated
/// months (at the store's clock, past the refunds played live): the backend claims a seat for
/// each member its purchasers invited (as many as the seats in force allow, the purchaser
/// keeping one), the App Store releases one claim in every fourth group (`UNCLAIM_SEATS`,
/// through the webhook), and each member's entitlements are compared with the simulator's
/// own state: entitled to the group's product while the App Store holds their claim and deems
/// the group subscription active.
struct DemoSeats {
  let simulation: Simulation
  let store: SimulatedAppStore
  let ledger: Ledger
  let api: AppStoreServerAPIClient
  let webhook: String
  let logger: Logger

  func run() async throws -> DemoSummary.Seats {
    var result = DemoSummary.Seats()
    let seats = SeatLedger(ledger: ledger, apple: api)
    let now = store.now
    let groups = simulation.truth.groupMembers.keys.sorted()
    result.groups = groups.count
    for (index, group) in groups.enumerated() {
      let members = simulation.truth.groupMembers[group] ?? []
      guard store.groupInForce(group).active,
        let report = try? await seats.show(group, at: now.date), report.entitled,
        let inForce = report.seats
      else { continue }
      result.active += 1
      result.seatsInForce += Int(inForce.total)
      for member in members.prefix(Int(inForce.total) - 1) {
        let claimed = try await seats.claim(group, for: member, at: now.date)
        if claimed.claim.state == .claimed { result.claimed += 1 }
      }
      if index % 4 == 0, let released = store.seatClaims(of: group).keys.sorted().first {
        store.unclaimSeats(group, [released])
        result.unclaimedByApple += 1
      }
    }
    await NotificationDeliverer(store: store, webhookURL: webhook, logger: logger)
      .deliverPending()
    for group in groups {
      let held = Set(store.seatClaims(of: group).keys)
      let (active, product) = store.groupInForce(group)
      let report = try? await seats.show(group, at: now.date)
      for claim in report?.claims ?? [] {
        guard let member = claim.appAccountToken, let id = claim.seatClaimId else { continue }
        result.members += 1
        let expected: Set<String> =
          held.contains(id) && active
          ? Set(product.flatMap { SimulatedProducts.entitlements[$0] } ?? []) : []
        let entitled = Set(
          try await ledger.entitlements(for: member, at: now.date).filter(\.active)
            .map(\.entitlement))
        if entitled == expected {
          result.membersAgree += 1
        } else {
          result.disagreements.append(
            "member \(member) of \(group): entitlements \(entitled.sorted()), truth \(expected.sorted())"
          )
        }
      }
    }
    return result
  }
}
