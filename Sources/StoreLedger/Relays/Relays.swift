import Foundation
import StoreLedgerCore

/// Relays of Apple's notifications to other systems: a staging backend, or the vendor an app
/// is moving from (Apple allows one notification URL per environment and app). Each target
/// gets the signed body exactly as Apple sent it, with retries and a dead-letter state; every
/// attempt and its outcome is an event of the log (`ledger.relay_attempted.v1` in
/// `relay:<target>`), so what a target received, and when, is answered from the audited log.
/// Relaying runs beside the ledger (``Relayer``): it never slows or fails the webhook.
public struct Relays: Sendable {
  let relays: any RelayQueue
  /// Where a target's configuration is recorded, beside its attempts.
  let log: any EventLog
  let calls: StorageCalls

  /// The environments Apple sends notifications from.
  public static let environments = ["Production", "Sandbox"]

  /// Adds a target; notifications stored from now on are relayed to it. `environments`
  /// defaults to both; `notificationTypes` nil relays every type (also ones not known yet).
  /// A name in use is a `conflict`; a name, URL, environment or type that is not well formed
  /// is `invalidRequest`; nothing is stored then.
  public func add(
    name: String, url: String, environments: [String]? = nil, notificationTypes: [String]? = nil,
    by: String, now: Date = Date()
  ) async throws(LedgerError) -> RelayTarget {
    let queue = relays
    let target = RelayTarget(
      name: try Self.name(name), url: url, urlKey: try Self.urlKey(url),
      environments: try Self.environments(environments),
      notificationTypes: try Self.types(notificationTypes), createdAt: now,
      createdBy: Self.who(by))
    guard try await calls.run({ try await queue.addRelayTarget(target) }) else {
      throw LedgerError(
        .conflict,
        "a relay target named \(target.name) exists: remove it first, or choose another name")
    }
    do {
      try await record(.init(.added, target, by: target.createdBy, at: Timestamp(now)))
    } catch {
      _ = try? await calls.run { try await queue.removeRelayTarget(named: target.name) }
      throw error
    }
    return target
  }

  /// Removes a target and its queue (its attempts stay in the log); `notFound` when there is
  /// none of that name.
  public func remove(name: String, by: String, now: Date = Date()) async throws(LedgerError)
    -> RelayTarget
  {
    let queue = relays
    let target = try await target(named: name)
    guard try await calls.run({ try await queue.removeRelayTarget(named: target.name) })
    else { throw Self.unknown(name) }
    try await record(.init(.removed, target, by: Self.who(by), at: Timestamp(now)))
    return target
  }

  /// Every target with its queue's counts, by name.
  public func targets() async throws(LedgerError) -> [(RelayTarget, RelayTargetCounts)] {
    let queue = relays
    let (targets, counts) = try await calls.run {
      (try await queue.relayTargets(), try await queue.relayCounts())
    }
    let byName = Dictionary(counts.map { ($0.target, $0) }, uniquingKeysWith: { a, _ in a })
    return targets.map {
      (
        $0,
        byName[$0.name]
          ?? RelayTargetCounts(
            target: $0.name, delivered: 0, retrying: 0, waiting: 0, dead: 0,
            oldestPendingSeconds: 0)
      )
    }
  }

  public func target(named name: String) async throws(LedgerError) -> RelayTarget {
    let queue = relays
    let wanted = name.lowercased()
    guard
      let target = try await calls.run({ try await queue.relayTargets() })
        .first(where: { $0.name == wanted })
    else { throw Self.unknown(name) }
    return target
  }

  /// What the target was sent, newest first, from the log: every attempt and its outcome (of
  /// one notification when `notificationUUID` is given), older than stream version `before`.
  /// Also for a removed target: the log keeps its attempts.
  public func attempts(
    of name: String, notificationUUID: String? = nil, before: Int64? = nil, limit: Int = 100
  ) async throws(LedgerError) -> [RecordedRelayAttempt] {
    try await attemptsPage(
      of: name, notificationUUID: notificationUUID, before: before, limit: limit, countTotal: false
    ).attempts
  }

  /// ``attempts(of:notificationUUID:before:limit:)`` with how many attempts the target (of the
  /// notification, when given) has in all (`total`, when `countTotal`), and the `before` of the
  /// next page (nil on the last).
  public func attemptsPage(
    of name: String, notificationUUID: String? = nil, before: Int64? = nil, limit: Int = 100,
    countTotal: Bool = true
  ) async throws(LedgerError) -> (attempts: [RecordedRelayAttempt], total: Int?, nextBefore: Int64?)
  {
    let queue = relays
    let name = try Self.name(name)
    guard (1...1000).contains(limit) else {
      throw LedgerError(.invalidRequest, "limit must be between 1 and 1000")
    }
    let key = notificationUUID.map { "asn2:\($0)" }
    let read = try await calls.run {
      try await queue.relayAttempts(
        to: name, notification: key, before: before, limit: limit + 1, countTotal: countTotal)
    }
    let rows = read.rows.prefix(limit)
    return (
      rows.compactMap(RecordedRelayAttempt.init), read.total,
      read.rows.count > limit ? rows.last?.streamVersion : nil
    )
  }

  /// The target's queue, newest first: `dead` for its dead letters, `pending` for what waits
  /// (the first page of ``deliveriesPage(of:state:limit:cursor:)``).
  public func deliveries(of name: String, state: DeliveryState? = nil, limit: Int = 100)
    async throws(LedgerError) -> [RelayDelivery]
  {
    try await deliveriesPage(of: name, state: state, limit: limit).rows
  }

  /// A page of the target's queue (of one state when given), newest notification first, with
  /// how many the whole list holds (counted on the first page); `cursor` is the `nextCursor`
  /// of the page before. Every row is on exactly one page.
  public func deliveriesPage(
    of name: String, state: DeliveryState? = nil, limit: Int = 100, cursor: String? = nil
  ) async throws(LedgerError) -> ListPage<RelayDelivery> {
    let queue = relays
    guard (1...1000).contains(limit) else {
      throw LedgerError(.invalidRequest, "limit must be between 1 and 1000")
    }
    let target = try await target(named: name).name
    return try await ListPage<RelayDelivery>.read(
      list: "relay-deliveries", filter: "\(target)\n\(state?.rawValue ?? "")", limit: limit,
      cursor: cursor, key: { parts in parts[0] == target ? parts[1] : nil },
      read: { (key, count) throws(EventStoreError) in
        try await queue.relayDeliveries(
          to: target, state: state, after: key, limit: limit + 1, countTotal: count)
      },
      keyOf: { [target, $0.notificationKey] }, mapped: LedgerStorage.mapped)
  }

  /// Queues the target's dead letters again (from a first attempt, with retries anew);
  /// returns how many.
  public func retryDead(of name: String) async throws(LedgerError) -> Int {
    let queue = relays
    let target = try await target(named: name)
    return try await calls.run { try await queue.retryDeadRelays(to: target.name) }
  }

  private func record(_ record: RelayTargetRecord) async throws(LedgerError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let payload: [UInt8]
    do {
      payload = Array(try encoder.encode([RelayTargetRecord.member: record]))
    } catch {
      throw LedgerError(.invalidRequest, "the relay target cannot be recorded")
    }
    let event = EventCodec.newRecord(
      payload, type: RelayTargetRecord.eventType,
      key: "relay:\(record.target):\(record.action.rawValue):\(record.at.milliseconds)",
      source: "relays")
    let log = self.log
    let stream = RelayTarget.streamId(of: record.target)
    _ = try await calls.run { try await log.append([event], to: stream, indexing: nil) }
  }

  static func unknown(_ name: String) -> LedgerError {
    LedgerError(
      .notFound,
      "no relay target is named \(name.prefix(63)) (see `storeledger relays list`)")
  }

  static func name(_ name: String) throws(LedgerError) -> String {
    let lowered = name.lowercased()
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
    guard let first = lowered.first, first != "-", first != "_", lowered.count <= 63,
      lowered.allSatisfy(allowed.contains)
    else {
      throw LedgerError(
        .invalidRequest,
        "a relay target's name is 1 to 63 letters, digits, - or _, starting with a letter or "
          + "digit, like `staging`")
    }
    return lowered
  }

  /// The host, port and path of an absolute http(s) URL; the URL itself is never echoed (its
  /// query may hold a credential).
  static func urlKey(_ text: String) throws(LedgerError) -> String {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
      throw LedgerError(
        .invalidRequest,
        "a relay target's URL must be absolute, like https://staging.example.com/apple")
    }
    guard ["http", "https"].contains(scheme) else {
      throw LedgerError(
        .invalidRequest,
        "a relay target's URL must be http:// or https://, not \(scheme.prefix(20)):")
    }
    guard let host = url.host, !host.isEmpty else {
      throw LedgerError(.invalidRequest, "a relay target's URL needs a host")
    }
    let port = url.port.map { ":\($0)" } ?? ""
    return "\(host)\(port)\(url.path.isEmpty ? "/" : url.path)"
  }

  static func environments(_ names: [String]?) throws(LedgerError) -> [String] {
    guard let names else { return Self.environments }
    var chosen: [String] = []
    for name in names {
      guard let known = Self.environments.first(where: { $0.lowercased() == name.lowercased() })
      else {
        throw LedgerError(
          .invalidRequest,
          "Apple sends notifications from Production and Sandbox; \(name.prefix(40)) is neither")
      }
      if !chosen.contains(known) { chosen.append(known) }
    }
    guard !chosen.isEmpty else {
      throw LedgerError(.invalidRequest, "name at least one environment: Production, Sandbox")
    }
    return chosen
  }

  /// Types as Apple spells them (`DID_RENEW`): upper-case letters, digits and `_`. Types this
  /// release does not know are accepted: Apple adds types, and a relay passes them on.
  static func types(_ types: [String]?) throws(LedgerError) -> [String]? {
    guard let types else { return nil }
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
    var chosen: [String] = []
    for type in types {
      let upper = type.uppercased()
      guard !upper.isEmpty, upper.count <= 64, upper.allSatisfy(allowed.contains) else {
        throw LedgerError(
          .invalidRequest,
          "a notification type is spelled as Apple does, like DID_RENEW or SUBSCRIBED")
      }
      if !chosen.contains(upper) { chosen.append(upper) }
    }
    guard !chosen.isEmpty, chosen.count <= 100 else {
      throw LedgerError(
        .invalidRequest, "name 1 to 100 notification types, or none to relay every type")
    }
    return chosen
  }

  static func who(_ by: String) -> String {
    let trimmed = by.trimmingCharacters(in: .whitespaces)
    return trimmed.isEmpty ? "api" : String(trimmed.prefix(200))
  }
}
