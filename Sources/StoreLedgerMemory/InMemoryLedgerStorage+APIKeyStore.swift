import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: APIKeyStore {
  public func createKey(_ key: APIKeyRecord) async throws(EventStoreError) -> Bool {
    state.withLock { state in
      guard !state.apiKeys.contains(where: { $0.name == key.name && $0.revokedAt == nil })
      else { return false }
      state.apiKeys.append(key)
      return true
    }
  }

  public func key(id: String) async throws(EventStoreError) -> APIKeyRecord? {
    state.withLock { $0.apiKeys.first { $0.id == id } }
  }

  public func keys() async throws(EventStoreError) -> [APIKeyRecord] {
    state.withLock { $0.apiKeys }
  }

  public func revokeKey(named name: String, at time: Date) async throws(EventStoreError) -> Bool {
    state.withLock { state in
      guard let index = state.apiKeys.firstIndex(where: { $0.name == name && $0.revokedAt == nil })
      else { return false }
      state.apiKeys[index].revokedAt = time
      return true
    }
  }
}
