import AppStoreSimulator
import Foundation
import StoreLedgerCore
import StoreLedgerMemory
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// The projector continues each account's status history with its new events instead of
/// deriving the account's whole log on every refresh; the audit derives every history whole
/// and compares. A simulated year played as it happens (each notification recorded a minute
/// after it was sent, the projector every week) is continued for most refreshes and leaves
/// the audit consistent.
@Suite struct StatusHistoryContinuationTests {
  @Test func aYearPlayedLiveIsContinuedAndTheAuditFindsTheLogsHistory() async throws {
    let ledger = try await ChangeEffectiveTimeFeedTests.playedAsItHappens()
    let cache = try #require(ledger.views.historyCache)
    let (continued, whole) = cache.counts
    #expect(continued > whole, "continued \(continued), derived whole \(whole)")
    // At the projector's last instant (the year's end, as played), when every view is current.
    let end = ChangeEffectiveTimeFeedTests.simulation.configuration.end.date
    let audit = try await LedgerMaintenance(ledger: ledger).audit(now: end.addingTimeInterval(120))
    #expect(audit.isConsistent, "\(audit.problems.prefix(3))")
    #expect(
      audit.accountsCompared > 0 && audit.accountsNotCurrent == 0,
      "compared \(audit.accountsCompared), not current \(audit.accountsNotCurrent)")
  }
}
