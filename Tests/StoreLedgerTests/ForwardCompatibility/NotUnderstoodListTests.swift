import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The list of notifications not understood is whole, however long: pages follow one another
/// by cursor, newest stored first, every notification on exactly one page, and the total is
/// the count of the list's rows (the console once showed the newest 500 and "100+").
@Suite struct NotUnderstoodListTests {
  static let configuration = LedgerConfiguration(
    bundleId: "com.example.app", environments: [.sandbox],
    trustedRoots: LedgerTests.pki.trustedRoots)

  @Test(arguments: StorageKind.allCases)
  func everyNotificationIsOnExactlyOnePageAndTheTotalCountsThemAll(_ kind: StorageKind)
    async throws
  {
    try await kind.withStorage { storage in
      let ledger = try Ledger(storage: storage, configuration: Self.configuration)
      let support = SupportQueries(ledger: ledger)
      let empty = try await support.notUnderstoodPage(limit: 3)
      #expect(empty.rows.isEmpty && empty.total == 0 && empty.nextCursor == nil)

      // Given seven notifications of a type and body no release knows.
      for index in 0..<7 {
        let receipt = try await ledger.ingest(
          notification: try NotUnderstoodNotificationTests.invented(uuid: "nu-\(index)"))
        #expect(receipt.unrouted)
      }

      // When they are read three at a time, then each is on one page, newest stored first.
      var seen: [String] = []
      var page = try await support.notUnderstoodPage(limit: 3)
      #expect(page.total == 7 && page.rows.count == 3)
      while true {
        seen += page.rows.map(\.notificationUUID)
        #expect(page.total == 7, "later pages carry the first page's count")
        guard let cursor = page.nextCursor else { break }
        page = try await support.notUnderstoodPage(limit: 3, cursor: cursor)
      }
      #expect(seen == (0..<7).reversed().map { "nu-\($0)" })
      #expect(try await support.notUnderstood(limit: 100).map(\.notificationUUID) == seen)

      // A page of exactly the list has no next page; a changed or foreign cursor is refused.
      let whole = try await support.notUnderstoodPage(limit: 7)
      #expect(whole.rows.count == 7 && whole.nextCursor == nil)
      let first = try await support.notUnderstoodPage(limit: 3)
      let cursor = try #require(first.nextCursor)
      let changed = await #expect(throws: LedgerError.self) {
        _ = try await support.notUnderstoodPage(limit: 3, cursor: String(cursor.dropLast(2)))
      }
      #expect(changed?.code == .invalidCursor)
      let requests = ConsumptionRequests(ledger: ledger)
      let foreign = await #expect(throws: LedgerError.self) {
        _ = try await requests.page(limit: 3, cursor: cursor)
      }
      #expect(foreign?.code == .invalidCursor)
      let outOfRange = await #expect(throws: LedgerError.self) {
        _ = try await support.notUnderstoodPage(limit: 0)
      }
      #expect(outOfRange?.code == .invalidRequest)
    }
  }
}
