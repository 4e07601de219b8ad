import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage {
  /// An account's view row: the appends that named it and the view projected last.
  struct ViewRow {
    var changes: Int64 = 0
    var projectedChanges: Int64 = 0
    var projection: String?
    var view: ProjectedAccountView?

    var slice: AccountViewSlice {
      AccountViewSlice(
        changes: changes, projectedChanges: projectedChanges, projection: projection,
        json: view.map { Array($0.summaryJSON.utf8) },
        interval: view?.interval ?? StableInterval(from: nil, until: nil))
    }
  }

  /// When a stream joined an account: the append's transaction and time.
  struct Join {
    var transaction: UInt64
    var at: Date
  }

  /// How far an account's changes are derived.
  struct Derivation {
    var version: Int64
    var events: Int64
    var changes: Int64
    var instant: Int64?
    var due: Int64?
  }

  /// A changes webhook: how far its deliveries are queued, and how many it accepted ever.
  struct Endpoint {
    var enqueuedThrough: Int64
    var deliveredTotal = 0
  }

  /// One delivery of one change to one endpoint.
  struct Delivery: QueuedDelivery {
    var position: Int64
    var token: String
    var state = DeliveryState.pending
    var attempts = 0
    var nextAttemptAt: Date
    var leasedUntil: Date?
    var firstAttemptAt: Date?
    var lastStatus: Int?
    var lastError: String?
    var deliveredAt: Date?

    func entry(endpoint: String) -> ChangeDelivery {
      ChangeDelivery(
        endpoint: endpoint, position: position, state: state, attempts: attempts,
        lastStatus: lastStatus, lastError: lastError, nextAttemptAt: nextAttemptAt,
        deliveredAt: deliveredAt)
    }
  }

  /// Which of `count` shares `key` falls in: any stable partition serves, as long as every
  /// caller uses the same one.
  static func share(of key: String, count: Int) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return Int(hash % UInt64(max(count, 1)))
  }

  static func holds(_ shard: WorkShard, _ key: String) -> Bool {
    shard.count == 1 || share(of: key, count: shard.count) == shard.index
  }

  /// The stored JSON object of `bytes`, if it is one.
  static func object(_ bytes: [UInt8]?) -> [String: Any]? {
    guard let bytes else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
  }

  /// A notification event's `notification` object of its facts, and of its claims.
  static func notification(_ event: RecordedEvent) -> (facts: [String: Any], claims: [String: Any])?
  {
    guard event.eventType.hasPrefix("appstore.notification."),
      let facts = object(event.payload)?["notification"] as? [String: Any]
    else { return nil }
    return (facts, object(event.claims)?["notification"] as? [String: Any] ?? [:])
  }

  static func milliseconds(_ value: Any?) -> Int64? {
    switch value {
    case let number as NSNumber: number.int64Value
    case let text as String: Int64(text)
    default: nil
    }
  }
}
