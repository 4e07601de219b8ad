import Foundation
import StoreLedgerCore
import Synchronization

/// Relay targets and their queue in memory, with the promises of the PostgreSQL queue: a
/// target relays what is appended after it was added, in feed order; a lease hides a
/// delivery from other claims until it runs out; attempts are the log's events.
extension InMemoryLedgerStorage: RelayQueue {
  struct RelayTargetState {
    var target: RelayTarget
    /// How many events of the feed the target's queuing has scanned.
    var scanned: Int
    var deliveredTotal = 0
  }

  struct RelayRow: QueuedDelivery {
    /// Where the notification is in the feed (index into the events).
    var offset: Int
    var key: String
    var notificationType: String?
    var environment: String?
    var state = DeliveryState.pending
    var attempts = 0
    var lastStatus: Int?
    var lastError: String?
    var nextAttemptAt: Date
    var leasedUntil: Date?
    var firstAttemptAt: Date?
    var deliveredAt: Date?

    func entry(target: String) -> RelayDelivery {
      RelayDelivery(
        target: target, notificationKey: key, notificationType: notificationType,
        environment: environment, state: state, attempts: attempts, lastStatus: lastStatus,
        lastError: lastError, nextAttemptAt: nextAttemptAt, deliveredAt: deliveredAt)
    }
  }

  /// The event types whose rows are Apple's notifications, in every form the log holds.
  static let notificationTypes: Set<String> = [
    EventTypes.notification, EventTypes.notificationWithoutTerms, EventTypes.notificationClaims,
  ]

  public func addRelayTarget(_ target: RelayTarget) async throws(EventStoreError) -> Bool {
    state.withLock { state in
      guard state.relayTargets[target.name] == nil else { return false }
      state.relayTargets[target.name] = RelayTargetState(
        target: target, scanned: state.events.count)
      return true
    }
  }

  public func removeRelayTarget(named name: String) async throws(EventStoreError) -> Bool {
    state.withLock { state in
      state.relayRows[name] = nil
      return state.relayTargets.removeValue(forKey: name) != nil
    }
  }

  public func relayTargets() async throws(EventStoreError) -> [RelayTarget] {
    state.withLock { state in state.relayTargets.values.map(\.target).sorted { $0.name < $1.name } }
  }

  public func queueRelays(to target: String, limit: Int) async throws(EventStoreError) -> Int? {
    let now = now()
    return state.withLock { state in
      guard let queued = state.relayTargets[target] else { return nil }
      let scan = state.events.indices.dropFirst(queued.scanned).prefix(limit)
      for offset in scan {
        let event = state.events[offset]
        guard Self.notificationTypes.contains(event.eventType), event.rawSigned != nil else {
          continue
        }
        let type = Self.notificationType(of: event)
        // Unrouted evidence (no environment) goes to every target of its type, as on
        // PostgreSQL: a relay passes on what Apple sent rather than guess.
        if let environment = event.environment,
          !queued.target.environments.contains(environment)
        {
          continue
        }
        if let types = queued.target.notificationTypes, !(type.map(types.contains) ?? false) {
          continue
        }
        guard state.relayRows[target, default: [:]][event.idempotencyKey] == nil else { continue }
        state.relayRows[target, default: [:]][event.idempotencyKey] = RelayRow(
          offset: offset, key: event.idempotencyKey, notificationType: type,
          environment: event.environment, nextAttemptAt: now)
      }
      state.relayTargets[target]?.scanned += scan.count
      return scan.count
    }
  }

  public func claimRelays(to target: String, limit: Int, lease: Duration)
    async throws(EventStoreError) -> [RelayDeliveryClaim]
  {
    let now = now()
    let until = now.addingTimeInterval(Double(lease.components.seconds))
    return state.withLock { state in
      let due = (state.relayRows[target] ?? [:]).values.filter { $0.isDue(at: now) }
        .sorted { $0.offset < $1.offset }.prefix(limit)
      return due.map { row in
        var row = row
        row.lease(until: until, now: now)
        state.relayRows[target]?[row.key] = row
        let event = state.events[row.offset]
        return RelayDeliveryClaim(
          notificationKey: row.key, streamId: event.streamId,
          streamVersion: event.streamVersion, notificationType: row.notificationType,
          environment: row.environment, attempt: row.attempts,
          firstAttemptAt: row.firstAttemptAt ?? now, signedPayload: event.rawSigned,
          originalBody: Self.object(event.metadata)?["body"] as? String)
      }
    }
  }

  public func recordRelays(_ outcomes: [RelayOutcome], to target: String)
    async throws(EventStoreError)
  {
    let now = now()
    state.withLock { state in
      guard state.relayRows[target] != nil else { return }
      let delivered = state.relayRows[target, default: [:]].record(
        outcomes, key: \.notificationKey, now: now)
      state.relayTargets[target]?.deliveredTotal += delivered
    }
  }

  @discardableResult
  public func pruneRelays(to target: String, deliveredBefore age: Duration)
    async throws(EventStoreError) -> Int
  {
    let cutoff = now().addingTimeInterval(-Double(age.components.seconds))
    return state.withLock { state in
      guard state.relayRows[target] != nil else { return 0 }
      return state.relayRows[target, default: [:]].pruneDelivered(before: cutoff)
    }
  }

  public func retryDeadRelays(to target: String) async throws(EventStoreError) -> Int {
    let now = now()
    return state.withLock { state in
      let dead = (state.relayRows[target] ?? [:]).values.filter { $0.state == .dead }
      for var row in dead {
        row.requeue(at: now)
        state.relayRows[target]?[row.key] = row
      }
      return dead.count
    }
  }

  public func relayDeliveries(
    to target: String, state wanted: DeliveryState?, after: String?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RelayDelivery> {
    state.withLock { state in
      let rows = state.relayRows[target] ?? [:]
      let listed = rows.values.filter { wanted == nil || $0.state == wanted }
        .sorted { $0.offset > $1.offset }
      // The page after a row starts below that notification's place in the log.
      let below = after.map { key in rows[key]?.offset ?? -1 }
      let page = listed.filter { row in below.map { row.offset < $0 } ?? true }.prefix(limit)
      return ListRead(
        rows: page.map { $0.entry(target: target) }, total: countTotal ? listed.count : nil)
    }
  }

  public func relayCounts() async throws(EventStoreError) -> [RelayTargetCounts] {
    let now = now()
    return state.withLock { state in
      state.relayTargets.sorted { $0.key < $1.key }.map { name, target in
        let rows = (state.relayRows[name] ?? [:]).values
        let pending = rows.filter { $0.state == .pending }
        let oldest = pending.map { state.events[$0.offset].recordedAt }.min()
        return RelayTargetCounts(
          target: name, delivered: target.deliveredTotal,
          retrying: pending.filter { $0.attempts > 0 }.count,
          waiting: pending.filter { $0.attempts == 0 }.count,
          dead: rows.filter { $0.state == .dead }.count,
          oldestPendingSeconds: oldest.map { now.timeIntervalSince($0) } ?? 0)
      }
    }
  }

  public func relayAttempts(
    to target: String, notification: String?, before: Int64?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RecordedEvent> {
    state.withLock { state in
      let listed = Self.recorded(of: [RelayTarget.streamId(of: target)], in: state).filter {
        event in
        guard event.eventType == EventTypes.relayAttempted else { return false }
        guard let notification else { return true }
        let attempt = Self.object(event.payload)?["relayAttempt"] as? [String: Any]
        return (attempt?["notification"] as? String)?.lowercased() == notification.lowercased()
      }.sorted { $0.streamVersion > $1.streamVersion }
      let page = listed.filter { event in before.map { event.streamVersion < $0 } ?? true }
      return ListRead(rows: Array(page.prefix(limit)), total: countTotal ? listed.count : nil)
    }
  }

  /// Apple's `notificationType` as the stored payload holds it (nested in the facts of
  /// today's events, at the top of the oldest).
  static func notificationType(of event: RecordedEvent) -> String? {
    let payload = object(event.payload)
    return (payload?["notification"] as? [String: Any])?["notificationType"] as? String
      ?? payload?["notificationType"] as? String
  }
}
