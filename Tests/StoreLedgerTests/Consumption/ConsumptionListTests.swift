import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The refund requests list is whole, however long: pages follow one another by cursor, every
/// request is on exactly one page, and the total is the count of the list's rows (a list
/// once stopped at 500 and called that the total).
@Suite struct ConsumptionListTests {
  static let configuration = LedgerConfiguration(
    bundleId: "com.example.app", environments: [.sandbox],
    trustedRoots: LedgerTests.pki.trustedRoots)

  @Test(arguments: StorageKind.allCases)
  func everyRequestIsOnExactlyOnePageAndTheTotalCountsThemAll(_ kind: StorageKind)
    async throws
  {
    try await kind.withStorage { storage in
      let now = Int64(Date().timeIntervalSince1970 * 1000)
      // Seven requests, two asked at the same instant (the stream orders them).
      for index in 0..<7 {
        let at = now - Int64(min(index, 5)) * 60_000
        _ = try await storage.log.append(
          [ServicePortConformanceTests.requested("REQ-\(index)", transaction: "\(index)", at: at)],
          to: "consumption:Sandbox:req-\(index)", indexing: nil)
      }
      let requests = ConsumptionRequests(
        ledger: try Ledger(storage: storage, configuration: Self.configuration))
      var seen: [String] = []
      var page = try await requests.page(limit: 3)
      #expect(page.total == 7)
      while true {
        seen += page.rows.map(\.requestId)
        #expect(page.total == 7, "later pages carry the first page's count")
        guard let cursor = page.nextCursor else { break }
        page = try await requests.page(limit: 3, cursor: cursor)
      }
      #expect(seen.count == 7 && Set(seen).count == 7)
      let newestFirst = try await requests.page(limit: 7).rows.map(\.requestedAt)
      #expect(newestFirst == newestFirst.sorted(by: >))
      // A state holds what it holds: none is answered, and says so.
      let answered = try await requests.page(states: [.answered], limit: 3)
      #expect(answered.rows.isEmpty && answered.total == 0 && answered.nextCursor == nil)
      // A cursor of one list is refused by another.
      let first = try await requests.page(limit: 3)
      let refused = await #expect(throws: LedgerError.self) {
        _ = try await requests.page(states: [.pending], limit: 3, cursor: first.nextCursor)
      }
      #expect(refused?.code == .invalidCursor)
    }
  }
}
