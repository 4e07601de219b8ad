import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore

/// Erasure of one account from a large log, round by round, a different account each round:
/// the ceiling is one pass over every row's payload, claims and metadata made into one text,
/// looking for one string no row holds (the least the erasure's pass for rows elsewhere that
/// name the account can cost); then the erasure itself, as the owner.
enum ErasureMeasurement {
  static func ceiling(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await client.query(
      """
      SELECT count(*), count(*) FILTER (
        WHERE strpos(e.payload::text || coalesce(e.claims::text, '') || e.metadata::text,
          '"no such identifier"') > 0)
      FROM storeledger.events e
      """, logger: logger
    ) { rows in
      var count = 0
      for try await (all, found) in rows.decode((Int, Int).self) {
        precondition(found == 0)
        count = all
      }
      return count
    }
  }

  /// The account with the most streams among a slice of them: an erasure with work to do.
  static func account(_ round: Int, on client: PostgresClient, logger: Logger) async throws
    -> String
  {
    try await client.query(
      """
      SELECT app_account_token FROM storeledger.account_streams
      GROUP BY app_account_token ORDER BY count(*) DESC, app_account_token
      OFFSET \(round) LIMIT 1
      """, logger: logger
    ) { rows in
      for try await token in rows.decode(String.self) { return token }
      fatalError("no account to erase")
    }
  }

  static func run(owner: Ledger, client: PostgresClient, rounds: Int, logger: Logger)
    async throws
  {
    var ratios: [Double] = []
    for round in 1...rounds {
      let (_, readSeconds) = try await Figures.measure("scan (text of each row)", round) {
        try await ceiling(on: client, logger: logger)
      }
      let token = try await account(round, on: client, logger: logger)
      let (erased, eraseSeconds) = try await Figures.measure("erase one account", round) {
        let receipt = try await AccountErasure(ledger: owner).erase(
          [token], reason: "benchmark", requestedBy: "bench")
        precondition(receipt.outcome == .erased)
        return Int(receipt.erasedRows)
      }
      ratios.append(readSeconds / eraseSeconds)
      print(
        String(
          format: "       %d rows erased in %.2f s; the scan took %.2f s; speed against it: %.2f",
          erased, eraseSeconds, readSeconds, readSeconds / eraseSeconds))
    }
    print(String(format: "RESULT erasure_speed=%.2f", ratios.sorted()[ratios.count / 2]))
  }
}
