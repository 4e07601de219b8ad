import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// `storeledger metrics`, `metrics diff` and `export` on a database: the figures of signed
/// purchases, typed refusals of questions that cannot be answered, CSV and JSON lines that
/// go on from a position.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct MetricsCommandTests {
  typealias F = LedgerFixtures

  /// Two monthly subscriptions in January (9.99 each), one renewed in February and then
  /// refunded, ingested through the CLI.
  func withPurchases(_ body: @Sendable ([String]) async throws -> Void) async throws {
    try await AccountCommandTests().withLedgerOptions { options, pki, _ in
      let signed = SignedFixtures(pki: pki)
      func priced(_ payload: JWSTransactionDecodedPayload) -> JWSTransactionDecodedPayload {
        var copy = payload
        copy.price = 9_990
        copy.currency = "USD"
        copy.storefront = "USA"
        return copy
      }
      let transactions = [
        F.transaction("5100", purchased: 0, expires: 31, token: F.account(51)),
        F.transaction("5200", purchased: 3, expires: 34, token: F.account(52)),
        F.transaction("5101", original: "5100", purchased: 31, expires: 59, token: F.account(51)),
        F.transaction(
          "5101", original: "5100", purchased: 31, expires: 59, signed: 40, token: F.account(51),
          revoked: 40),
      ]
      for transaction in transactions {
        let stored = try CommandLineRunner.run(
          ["ingest", "-"] + options, standardInput: try signed.transaction(priced(transaction)))
        #expect(stored.status == 0, "\(stored.standardError)")
      }
      try await body(options)
    }
  }

  @Test func metricsAreAnsweredAndBadQuestionsRefusedByName() async throws {
    try await withPurchases { options in
      let months = try CommandLineRunner.run(
        ["metrics", "--from", "2026-01-01", "--to", "2026-03-01", "--by", "month", "--json"]
          + options)
      #expect(months.status == 0, "\(months.standardError)")
      let report = try JSONDecoder().decode(
        MetricsReport.self, from: Data(months.standardOutput.utf8))
      #expect(report.rows.map(\.figures.transactions) == [2, 1])
      #expect(report.rows.first?.figures.mrr == 19_980)
      #expect(report.rows.last?.figures.refunds == 1)
      #expect(report.rows.last?.figures.refundAmount == 9_990)
      let table = try CommandLineRunner.run(
        ["metrics", "--from", "2026-01-01", "--to", "2026-03-01", "--by", "month"] + options)
      #expect(table.standardOutput.contains("2026-01") && table.standardOutput.contains("19.98"))

      let reversed = try CommandLineRunner.run(
        ["metrics", "--from", "2026-03-01", "--to", "2026-01-01"] + options)
      #expect(reversed.status == 2)
      #expect(reversed.standardError.contains("range_reversed"))
      let grouping = try CommandLineRunner.run(
        ["metrics", "--from", "2026-01-01", "--to", "2026-02-01", "--group", "colour"] + options)
      #expect(grouping.status == 2 && grouping.standardError.contains("unknown_grouping"))
      let definition = try CommandLineRunner.run(
        [
          "metrics", "--from", "2026-01-01", "--to", "2026-02-01", "--definition", "chartmogul",
        ] + options)
      #expect(definition.status == 2)
      #expect(
        definition.standardError.contains("unknown_definition")
          && definition.standardError.contains("revenuecat"))
      let peer = try CommandLineRunner.run(
        [
          "metrics", "--from", "2026-01-01", "--to", "2026-03-01", "--by", "month",
          "--definition", "RevenueCat", "--json",
        ] + options)
      #expect(peer.status == 0, "\(peer.standardError)")
      let peerReport = try JSONDecoder().decode(
        MetricsReport.self, from: Data(peer.standardOutput.utf8))
      #expect(peerReport.definition == .revenuecat)
      #expect(report.definition == .storeledger)
      // Nothing lapsed for billing here: both definitions give the same figures.
      #expect(peerReport.rows == report.rows)
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "rates-\(UUID().uuidString).csv")
      try Data("GBP,1.25\n".utf8).write(to: folder)
      defer { try? FileManager.default.removeItem(at: folder) }
      let missing = try CommandLineRunner.run(
        [
          "metrics", "--from", "2026-01-01", "--to", "2026-02-01", "--rates", folder.path,
          "--currency", "EUR",
        ] + options)
      #expect(missing.status == 1)
      #expect(
        missing.standardError.contains("rate_missing") && missing.standardError.contains("USD"))

      let diff = try CommandLineRunner.run(
        [
          "metrics", "diff", "--from", "2026-02-01", "--to", "2026-03-01", "--by", "month",
          "--known-at", "2000-01-01", "--json",
        ] + options)
      #expect(diff.status == 0, "\(diff.standardError)")
      let moved = try JSONDecoder().decode(MetricsDiff.self, from: Data(diff.standardOutput.utf8))
      #expect(moved.changes.contains { $0.figure == "refunds" && $0.after == 1 })
      #expect(Set(moved.causes.map(\.originalTransactionId)) == ["5100", "5200"])
    }
  }

  @Test func exportWritesRowsAndGoesOnFromAPosition() async throws {
    try await withPurchases { options in
      let csv = try CommandLineRunner.run(["export", "--format", "csv"] + options)
      #expect(csv.status == 0, "\(csv.standardError)")
      let lines = csv.standardOutput.split(separator: "\n")
      #expect(lines.first?.hasPrefix("position,chain,original_transaction_id") == true)
      let charges = lines.filter { $0.contains(",purchase,") || $0.contains(",renewal,") }
      #expect(charges.count == 3)
      // Why each was charged, from Apple's fields: two first purchases, and 5101 (signed
      // without a transactionReason, as stored rows before it was kept) follows its period.
      #expect(lines.first?.hasSuffix(",offer,reason") == true)
      #expect(charges.filter { $0.hasSuffix(",initial") }.count == 2)
      #expect(charges.filter { $0.hasSuffix(",renewal") }.count == 1)
      #expect(lines.filter { $0.contains(",new_subscription,") }.allSatisfy { $0.hasSuffix(",") })
      #expect(lines.contains { $0.contains(",refund,") && $0.contains(",9990,") })
      let resume = try #require(
        csv.standardError.split(separator: " ").last.map {
          $0.trimmingCharacters(in: .whitespacesAndNewlines)
        })
      // Nothing changed since: going on from the last position gives no rows.
      let rest = try CommandLineRunner.run(
        ["export", "--format", "jsonl", "--after-position", resume] + options)
      #expect(rest.status == 0, "\(rest.standardError)")
      #expect(rest.standardOutput.isEmpty)
      let periods = try CommandLineRunner.run(
        ["export", "--what", "periods", "--format", "jsonl", "--from", "2026-02-01"] + options)
      let rows = periods.standardOutput.split(separator: "\n").map {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
      #expect(!rows.isEmpty && rows.allSatisfy { $0?["monthly_value"] != nil })
      #expect(rows.allSatisfy { $0?["in_grace"] as? Bool == false })
      let bad = try CommandLineRunner.run(["export", "--after-position", "soon"] + options)
      #expect(bad.status == 2 && bad.standardError.contains("--after-position"))
    }
  }
}
