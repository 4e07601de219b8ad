import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: RevenueAnalyticsStore {
  public func storeRevenue(_ chains: [ChainRevenue]) async throws(EventStoreError) {
    state.withLock { state in
      for chain in chains { state.revenue[chain.chain] = chain }
    }
  }

  public func clearRevenue() async throws(EventStoreError) {
    state.withLock { $0.revenue.removeAll() }
  }

  public func revenueChains(after position: FeedPosition, limit: Int)
    async throws(EventStoreError) -> [ChainRevenue]
  {
    state.withLock { state in
      Array(
        state.revenue.values.filter { $0.position > position }
          .sorted { ($0.position, $0.chain) < ($1.position, $1.chain) }.prefix(limit))
    }
  }
}
