import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore

/// Erasure of one account from a large log, round by round, a different account each round:
/// the ceiling is one pass over every row's payload, claims and metadata as text, looking for
/// a string no row holds (the pass an erasure makes for rows elsewhere that name the
/// account); then the erasure itself, as the owner.
enum ErasureMeasurement {
  static func ceiling(on client: PostgresClient, logger: Logger) async throws -> Int {
    try await client.query(
      """
      SELECT count(*) FROM storeledger.events e
      WHERE strpos(e.payload::text, '"no such identifier"') > 0
         OR strpos(coalesce(e.claims::text, ''), '"no such identifier"') > 0
         OR strpos(e.metadata::text, '"no such identifier"') > 0
         OR e.idempotency_key = 'no such identifier'
      """, logger: logger
    ) { rows in
      var count = 0
      for try await value in rows.decode(Int.self) { count = value }
      precondition(count == 0)
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
      let rows = try await client.query(
        "SELECT count(*) FROM storeledger.events", logger: logger
      ) { rows in
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
      }
      let (_, readSeconds) = try await Figures.measure("scan (text of \(rows) rows)", round) {
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
          format: "       %d rows erased; speed against the scan: %.2f", erased,
          readSeconds / eraseSeconds))
    }
    print(String(format: "RESULT erasure_speed=%.2f", ratios.sorted()[ratios.count / 2]))
  }
}
