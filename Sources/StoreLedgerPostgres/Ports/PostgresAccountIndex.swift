import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The ledger's `AccountIndex` on PostgreSQL: `storeledger.account_streams` (written with
/// each append), `storeledger.consumption_requests` (kept by a trigger on the log) and
/// `storeledger.app_transactions`.
public struct PostgresAccountIndex: AccountIndex {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func accounts(holding streams: [String]) async throws(EventStoreError) -> [String] {
    try await database.primary("reading the account index") { client, logger in
      try await AccountViewStatements.accounts(ofStreams: streams, on: client, logger: logger)
        .sorted()
    }
  }

  public func refundRequestStreams(ofChain originalTransactionId: String)
    async throws(EventStoreError) -> [String]
  {
    try await database.primary("reading the refund requests' index") { client, logger in
      try await RefundRequestStatements.streams(
        ofChain: originalTransactionId, on: client, logger: logger)
    }
  }

  public func seatStreams(holdingClaims seatClaimIds: [String]) async throws(EventStoreError)
    -> [String]
  {
    try await database.primary("reading the seat claims") { client, logger in
      try await SeatQueries.streams(holdingClaims: seatClaimIds, on: client, logger: logger)
        .sorted()
    }
  }

  public func note(_ sightings: [DownloadSighting]) async throws(EventStoreError)
    -> [DownloadSighting]
  {
    try await database.primary("noting app downloads") { client, logger in
      try await AppTransactionIndex.note(sightings, on: client, logger: logger)
    }
  }

  public func accounts(holdingDownload appTransactionId: String, environment: String)
    async throws(EventStoreError) -> [String]
  {
    try await database.primary("reading the app downloads' index") { client, logger in
      try await AppTransactionIndex.accounts(
        holdingDownload: appTransactionId, environment: environment, on: client,
        logger: logger
      ).sorted()
    }
  }
}
