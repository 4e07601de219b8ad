import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Erasure runs on the primary, in `storeledger.erase_accounts` (schema/0023), without the
/// per-statement timeout: it reads the whole log once for rows that name the accounts, which
/// takes longer than any query a request makes, and must not be abandoned half way by the
/// caller (the transaction would finish or roll back on its own anyway).
public struct PostgresAccountErasureStore: AccountErasureStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func erase(_ request: ErasureRequest) async throws(EventStoreError) -> ErasureReceipt {
    let (client, logger) = (database.client, database.logger)
    let receipt: ErasureReceipt
    do {
      receipt = try await ErasureStatements.erase(request, on: client, logger: logger)
    } catch {
      throw EventStoreError.database(error, while: "erasing accounts")
    }
    // An erasure a switch rewound away would bring the customer's data back: it is reported
    // done only once a standby has it, as an append is.
    try await database.hosts.confirmReplicated(on: client, within: .seconds(30))
    return receipt
  }

  public func erasures() async throws(EventStoreError) -> [ErasureRecord] {
    let (client, logger) = (database.client, database.logger)
    do {
      return try await ErasureStatements.erasures(on: client, logger: logger)
    } catch {
      throw EventStoreError.database(error, while: "reading the erasures")
    }
  }

  public func erasure(ofAccount appAccountToken: String) async throws(EventStoreError) -> UUID? {
    try await database.primary("looking up an erasure") { client, logger in
      try await ErasureStatements.erasure(
        ofAccount: AppAccountToken.normalized(appAccountToken), on: client, logger: logger)
    }
  }

  public func unrecordedErasures() async throws(EventStoreError) -> [UUID: Int64] {
    let (client, logger) = (database.client, database.logger)
    do {
      return try await ErasureStatements.unrecorded(on: client, logger: logger)
    } catch {
      throw EventStoreError.database(error, while: "checking erased rows")
    }
  }

  public func quarantinedAccountsIndexed() async throws(EventStoreError) -> Int64 {
    let (client, logger) = (database.client, database.logger)
    do {
      return try await ErasureStatements.quarantinedIndexed(on: client, logger: logger)
    } catch {
      throw EventStoreError.database(error, while: "checking quarantined accounts")
    }
  }
}
