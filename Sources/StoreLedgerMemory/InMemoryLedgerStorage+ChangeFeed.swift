import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: ChangeFeed {
  public func changes(
    after position: Int64, limit: Int, account: String?, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ChangePage> {
    state.withLock { state in
      let after = state.changes(after: position)
      let records =
        account.map { account in
          Array(after.filter { $0.appAccountToken == account }.sorted { $0.ordinal < $1.ordinal })
        } ?? Array(after)
      let page = Array(records.prefix(limit))
      let head = page.isEmpty && position > 0 ? state.changeHead : nil
      return ReadAnswer(value: ChangePage(changes: page, count: head))
    }
  }

  public func newestChanges(
    of account: String, offset: Int, limit: Int, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ChangePage> {
    state.withLock { state in
      let all = state.changes.filter { $0.appAccountToken == account }
        .sorted { $0.ordinal > $1.ordinal }
      return ReadAnswer(
        value: ChangePage(
          changes: Array(all.dropFirst(offset).prefix(limit)), count: Int64(all.count)))
    }
  }

  public func changes(ofAccounts accounts: [String]) async throws(EventStoreError)
    -> [String: [ChangeRecord]]
  {
    let wanted = Set(accounts)
    return state.withLock { state in
      Dictionary(grouping: state.changes.filter { wanted.contains($0.appAccountToken) }) {
        $0.appAccountToken
      }.mapValues { $0.sorted { $0.ordinal < $1.ordinal } }
    }
  }

  public func changes(at positions: [Int64]) async throws(EventStoreError) -> [ChangeRecord] {
    state.withLock { state in
      Set(positions).sorted().compactMap { state.change(at: $0) }
    }
  }

  public func head() async throws(EventStoreError) -> Int64 {
    state.withLock { $0.changeHead }
  }

  public func firstPosition(recordedSince time: Date) async throws(EventStoreError) -> Int64 {
    state.withLock { state in
      state.changes.first { $0.recordedAt >= time }?.position ?? state.changeHead + 1
    }
  }
}
