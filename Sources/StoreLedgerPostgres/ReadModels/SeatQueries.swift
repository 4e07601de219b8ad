import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Where the log keeps seat claims.
package enum SeatQueries {
  /// The seat streams (`seats:<env>:<originalTransactionId>`) holding claims with any of
  /// `seatClaimIds`: where an `UNCLAIM_SEATS` naming them belongs.
  package static func streams(
    holdingClaims seatClaimIds: [String], on client: PostgresClient, logger: Logger
  ) async throws -> [String] {
    guard !seatClaimIds.isEmpty else { return [] }
    return try await AccountViewStatements.strings(
      """
      SELECT DISTINCT stream_id FROM storeledger.events
      WHERE event_type = \(SeatClaimEvent.eventType)
        AND payload->'seat'->>'seatClaimId' = ANY(\(seatClaimIds.map { $0.lowercased() }))
      """, on: client, logger: logger)
  }
}
