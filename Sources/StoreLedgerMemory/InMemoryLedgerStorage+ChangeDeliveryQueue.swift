import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: ChangeDeliveryQueue {
  public func register(_ endpoint: String) async throws(EventStoreError) {
    state.withLock { state in
      if state.endpoints[endpoint] == nil {
        state.endpoints[endpoint] = Endpoint(enqueuedThrough: state.changeHead)
      }
    }
  }

  @discardableResult
  public func enqueue(_ endpoint: String, limit: Int) async throws(EventStoreError) -> Int {
    let now = now()
    return state.withLock { state in
      guard let through = state.endpoints[endpoint]?.enqueuedThrough else { return 0 }
      let new = state.changes(after: through).prefix(limit)
      guard let last = new.last else { return 0 }
      for change in new where state.deliveries[endpoint, default: [:]][change.position] == nil {
        state.deliveries[endpoint, default: [:]][change.position] = Delivery(
          position: change.position, token: change.appAccountToken, nextAttemptAt: now)
      }
      state.endpoints[endpoint]?.enqueuedThrough = last.position
      return new.count
    }
  }

  public func claim(_ endpoint: String, limit: Int, lease: Duration)
    async throws(EventStoreError) -> [ChangeDeliveryClaim]
  {
    let now = now()
    let until = now.addingTimeInterval(Double(lease.components.seconds))
    return state.withLock { state in
      let rows = state.deliveries[endpoint] ?? [:]
      let pending = rows.values.filter { $0.state == .pending }
      // An account's oldest pending change goes first; the others wait for it.
      let oldest = Dictionary(grouping: pending, by: \.token).mapValues {
        $0.map(\.position).min() ?? 0
      }
      let due = pending.filter { $0.isDue(at: now) && oldest[$0.token] == $0.position }
        .map(\.position).sorted().prefix(limit)
      return due.compactMap { position in
        guard var delivery = rows[position] else { return nil }
        delivery.lease(until: until, now: now)
        state.deliveries[endpoint]?[position] = delivery
        return ChangeDeliveryClaim(
          position: position, attempt: delivery.attempts,
          firstAttemptAt: delivery.firstAttemptAt ?? now)
      }
    }
  }

  public func record(_ outcomes: [ChangeDeliveryOutcome], endpoint: String)
    async throws(EventStoreError)
  {
    let now = now()
    state.withLock { state in
      guard state.deliveries[endpoint] != nil else { return }
      let delivered = state.deliveries[endpoint, default: [:]].record(
        outcomes, key: \.position, now: now)
      state.endpoints[endpoint]?.deliveredTotal += delivered
    }
  }

  @discardableResult
  public func prune(_ endpoint: String, deliveredBefore age: Duration)
    async throws(EventStoreError) -> Int
  {
    let cutoff = now().addingTimeInterval(-Double(age.components.seconds))
    return state.withLock { state in
      guard state.deliveries[endpoint] != nil else { return 0 }
      return state.deliveries[endpoint, default: [:]].pruneDelivered(before: cutoff)
    }
  }

  public func resend(_ endpoint: String, from position: Int64) async throws(EventStoreError)
    -> Int
  {
    let now = now()
    return state.withLock { state in
      guard let through = state.endpoints[endpoint]?.enqueuedThrough else { return 0 }
      let again = state.changes.filter { $0.position >= position && $0.position <= through }
      for change in again {
        state.deliveries[endpoint, default: [:]][change.position] = Delivery(
          position: change.position, token: change.appAccountToken, nextAttemptAt: now)
      }
      return again.count
    }
  }

  public func deliveries(
    _ filter: ChangeDeliveryFilter, after key: ChangeDeliveryKey?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<ChangeDelivery> {
    state.withLock { state in
      let listed = state.deliveries.flatMap { endpoint, rows in
        rows.values.map { $0.entry(endpoint: endpoint) }.filter(filter.holds)
      }.sorted { ($1.position, $0.endpoint) < ($0.position, $1.endpoint) }
      let after = key.map { key in listed.filter(key.precedes) } ?? listed
      return ListRead(rows: Array(after.prefix(limit)), total: countTotal ? listed.count : nil)
    }
  }

  public func deliveries(ofPositions positions: [Int64]) async throws(EventStoreError)
    -> [ChangeDelivery]
  {
    let wanted = Set(positions)
    return state.withLock { state in
      state.deliveries.filter { state.endpoints[$0.key] != nil }.flatMap { key, rows in
        rows.values.filter { wanted.contains($0.position) }.map { $0.entry(endpoint: key) }
      }.sorted { ($0.position, $0.endpoint) < ($1.position, $1.endpoint) }
    }
  }

  public func counts() async throws(EventStoreError) -> [ChangeDeliveryCounts] {
    let now = now()
    return state.withLock { state in
      state.endpoints.sorted { $0.key < $1.key }.map { key, endpoint in
        let rows = (state.deliveries[key] ?? [:]).values
        let pending = rows.filter { $0.state == .pending }
        let oldest = pending.map(\.position).min().flatMap { state.change(at: $0)?.recordedAt }
        return ChangeDeliveryCounts(
          endpoint: key, delivered: endpoint.deliveredTotal,
          retrying: pending.filter { $0.attempts > 0 }.count,
          waiting: pending.filter { $0.attempts == 0 }.count,
          dead: rows.filter { $0.state == .dead }.count,
          lagSeconds: oldest.map { now.timeIntervalSince($0) } ?? 0,
          unqueued: state.changes(after: endpoint.enqueuedThrough).count)
      }
    }
  }
}
