import Foundation
import StoreLedger
import StoreLedgerCore

/// The demo's operators' grants: an outage is declared over the play of the simulation's last
/// 30 days (the change feed dates a change when the ledger learned it, and the demo's ledger
/// learns a year in minutes), and everyone whose subscription entered billing retry in it gets
/// a week of "pro" (one bulk grant, idempotent by its key: the demo runs it twice and the second
/// run grants nobody). Each granted account is then checked to hold "pro" a second from now.
struct DemoGrants {
  let ledger: Ledger
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
