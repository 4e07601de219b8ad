import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore

/// The demo's operators' grants: an outage is declared over the simulated year's last 30 days
/// (Apple's clock, as every window), and everyone whose subscription entered billing retry in
/// it gets a week of "pro" (one bulk grant, idempotent by its key: the demo runs it twice and the second
/// run grants nobody). Each granted account is then checked to hold "pro" a second from now.
struct DemoGrants {
  let ledger: Ledger
  let simulation: Simulation
  /// The outage window, Unix ms.
  let from: Int64
  let before: Int64
  let seed: UInt64

  static let entitlement = "pro"

  func run() async throws -> DemoSummary.Grants {
    var result = DemoSummary.Grants(outageFrom: from, outageBefore: before)
    let grants = SupportGrants(ledger: ledger)
    let tokens = try await grants.accounts(
      enteredStatus: 3, from: Timestamp(milliseconds: from).date,
      before: Timestamp(milliseconds: before).date)
    result.enteredBillingRetry = tokens.count
    let truth = simulation.truth
    let owners = Dictionary(
      uniqueKeysWithValues: truth.customers.compactMap { customer in
        customer.appAccountToken.map { (customer.id, $0) }
      })
    result.booksAccounts =
      Set(
        truth.entries(
          into: .billingRetry, from: Timestamp(milliseconds: from),
          before: Timestamp(milliseconds: before)
        ).compactMap { truth.owners[$0.originalTransactionId].flatMap { owners[$0] } }
      ).count
    guard !tokens.isEmpty else { return result }
    let now = Date()
    let key = "demo-outage-\(seed)"
    func grant() async throws -> BulkGrantReceipt {
      try await grants.grant(
        tokens, entitlement: Self.entitlement, endsAt: now.addingTimeInterval(7 * 86_400),
        reason: "a week of pro after the outage of the last 30 days", by: "demo",
        idempotencyKey: key, now: now)
    }
    let first = try await grant()
    result.granted = first.granted.count
    result.refused = first.refused.count
    let again = try await grant()
    result.grantedAgain = again.granted.count
    result.alreadyGranted = again.alreadyGranted.count
    for token in tokens {
      let entitlements = try await ledger.entitlements(for: token, at: now.addingTimeInterval(1))
      if entitlements.contains(where: { $0.entitlement == Self.entitlement && $0.active }) {
        result.entitled += 1
      }
    }
    return result
  }
}
