import Foundation
import StoreLedgerCore

/// Erasure is PostgreSQL's (`storeledger.erase_accounts`): the in-memory storage records no
/// erasure and refuses to erase, saying so.
extension InMemoryLedgerStorage: AccountErasureStore {
  public func erase(_ request: ErasureRequest) async throws(EventStoreError) -> ErasureReceipt {
    throw EventStoreError(
      .invalidConfiguration,
      "erasure runs in PostgreSQL (storeledger.erase_accounts); in-memory storage does not erase")
  }

  public func erasures() async throws(EventStoreError) -> [ErasureRecord] { [] }

  public func erasure(ofAccount appAccountToken: String) async throws(EventStoreError) -> UUID? {
    nil
  }

  public func unrecordedErasures() async throws(EventStoreError) -> [UUID: Int64] { [:] }

  public func quarantinedAccountsIndexed() async throws(EventStoreError) -> Int64 { 0 }
}
