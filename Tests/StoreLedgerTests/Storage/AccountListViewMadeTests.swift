import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// No list row without account facts goes unexplained: an account the log names before the
/// projector reaches it is listed with `viewMade` false (a list once showed such a row with
/// every column empty), and with its facts once its view is made.
@Suite struct AccountListViewMadeTests {
  typealias F = LedgerFixtures
  static let configuration = LedgerConfiguration(
    bundleId: "com.example.app", environments: [.sandbox],
    trustedRoots: LedgerTests.pki.trustedRoots)

  @Test(arguments: StorageKind.allCases)
  func anAccountBeforeItsViewIsMadeSaysSo(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let ledger = try Ledger(storage: storage, configuration: Self.configuration)
      let token = F.account(7)
      // Given a purchase stored, its account's view not made yet.
      _ = try await ledger.ingest(
        signedTransaction: try SignedFixtures(pki: LedgerTests.pki).transaction(
          F.transaction("7000", purchased: 0, expires: 30, token: token)))
      let lists = AccountLists(ledger: ledger)
      let before = try await lists.accounts(AccountListFilter(), limit: 10)
      let row = try #require(before.rows.first { $0.appAccountToken == token })
      #expect(!row.viewMade && row.statuses.isEmpty && row.products.isEmpty)

      // When the projector reaches it, then the row holds its facts.
      _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(
        now: F.t(10).date)
      let after = try await lists.accounts(AccountListFilter(), limit: 10)
      let made = try #require(after.rows.first { $0.appAccountToken == token })
      #expect(made.viewMade && made.statuses == [1] && !made.products.isEmpty)
      #expect(ListCSV.fields(made).last == "true" && ListCSV.fields(row).last == "false")
    }
  }
}
