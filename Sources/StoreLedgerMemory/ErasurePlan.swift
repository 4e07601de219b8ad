import Crypto
import Foundation
import StoreLedgerCore

/// What one in-memory erasure covers, found before anything changes (a refusal changes
/// nothing): the accounts' streams, the identifiers their rows hold, the rows of other streams
/// that name them, and which streams are erased whole.
struct ErasurePlan {
  typealias State = InMemoryLedgerStorage.State

  /// The fields whose values identify a customer or a purchase, wherever they nest.
  static let identifierFields: Set<String> = [
    "transactionId", "originalTransactionId", "appTransactionId", "webOrderLineItemId",
    "appAccountToken",
  ]

  let tokens: [String]
  let identifiers: Set<String>
  /// The rows to turn into tombstones, as indexes into the log, in feed order.
  let rows: [Int]
  /// Streams every row of which is erased now: renamed.
  let whole: Set<String>
  let streamCount: Int
  let digest: String

  init(tokens: [String], in state: State) throws(EventStoreError) {
    self.tokens = tokens
    let streams = Set(tokens.flatMap { state.streamsOfAccount[$0] ?? [] }).union(
      tokens.map { "consent:\($0)" }.filter { state.eventsOfStream[$0] != nil })
    try Self.refuseShared(streams, except: tokens, in: state)
    var identifiers = Set(tokens)
    for ordinal in streams.flatMap({ state.eventsOfStream[$0] ?? [] }) {
      let event = state.events[ordinal]
      for document in [event.payload, event.claims].compactMap({ $0 }) {
        if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(document)) {
          Self.collect(value, into: &identifiers)
        }
      }
    }
    identifiers.remove("")
    self.identifiers = identifiers
    let mentions = Self.rows(naming: identifiers, outside: streams, in: state)
    try Self.refuseShared(
      Set(mentions.map { state.events[$0].streamId }), except: tokens, in: state)
    let own = streams.flatMap { state.eventsOfStream[$0] ?? [] }.filter {
      state.events[$0].erasedBy == nil
    }
    rows = Set(own + mentions).sorted()
    let erasing = Set(rows)
    let touched = Set(rows.map { state.events[$0].streamId })
    whole = touched.filter { stream in
      (state.eventsOfStream[stream] ?? []).allSatisfy { erasing.contains($0) }
    }
    streamCount = touched.count
    digest = Self.digest(of: rows.map { state.events[$0] })
  }

  /// SHA-256 over the rows' hashes in feed order, lowercase hex.
  static func digest(of events: [RecordedEvent]) -> String {
    SHA256.hash(data: events.flatMap(\.hash)).map { String(format: "%02x", $0) }.joined()
  }

  /// Refuses when another account holds one of `streams`.
  private static func refuseShared(_ streams: Set<String>, except tokens: [String], in state: State)
    throws(EventStoreError)
  {
    let others = streams.flatMap { stream in
      (state.accountsOfStream[stream] ?? []).subtracting(tokens).map { (stream, $0) }
    }
    guard others.isEmpty else {
      throw .sharedAccountData(
        streams: "\(Set(others.map(\.0)).count)", accounts: "\(Set(others.map(\.1)).count)")
    }
  }

  private static func collect(_ value: JSONValue, into identifiers: inout Set<String>) {
    switch value {
    case .object(let members):
      for (key, member) in members {
        if identifierFields.contains(key) {
          switch member {
          case .string(let text): identifiers.insert(text)
          case .number(let number) where number == number.rounded() && abs(number) < 1e18:
            identifiers.insert(String(Int64(number)))
          case .number(let number): identifiers.insert(String(number))
          default: break
          }
        }
        collect(member, into: &identifiers)
      }
    case .array(let elements):
      for element in elements { collect(element, into: &identifiers) }
    default: break
    }
  }

  /// Rows outside `streams`, not erased yet, whose stream name, key (each split at `:` and
  /// `,`) or JSON names one of `identifiers` as a string: a lookup, a record of an action,
  /// unrouted evidence.
  private static func rows(
    naming identifiers: Set<String>, outside streams: Set<String>, in state: State
  )
    -> [Int]
  {
    let quoted = identifiers.map { "\"\($0)\"" }
    return state.events.indices.filter { ordinal in
      let event = state.events[ordinal]
      guard event.erasedBy == nil, !streams.contains(event.streamId) else { return false }
      let parts = Set(
        (event.streamId + ":" + event.idempotencyKey).split(whereSeparator: {
          $0 == ":" || $0 == ","
        })
        .map(String.init))
      if !parts.isDisjoint(with: identifiers) { return true }
      let body = String(
        decoding: event.payload + (event.claims ?? []) + event.metadata, as: UTF8.self)
      return quoted.contains { body.contains($0) }
    }
  }

  /// Turns the rows into tombstones: payload `{"erased": id}`, no JWS, claims or metadata, a
  /// random event id and key `erased:<event id>`; place, version, times and hashes kept.
  func tombstone(_ erasureId: UUID, in state: inout State) {
    let renamed = Dictionary(uniqueKeysWithValues: whole.map { ($0, "erased:\(Self.randomId())") })
    for ordinal in rows {
      let event = state.events[ordinal]
      let id = UUID()
      let key = "erased:\(id.uuidString.lowercased())"
      state.positionOfKey[event.idempotencyKey] = nil
      state.positionOfKey[key] = ordinal
      state.events[ordinal] = RecordedEvent(
        streamId: renamed[event.streamId] ?? event.streamId, streamVersion: event.streamVersion,
        position: event.position, eventId: id, idempotencyKey: key, eventType: event.eventType,
        environment: event.environment, appleSignedAt: event.appleSignedAt,
        recordedAt: event.recordedAt,
        payload: Array(#"{"erased":"\#(erasureId.uuidString.lowercased())"}"#.utf8),
        rawSigned: nil, metadata: Array("{}".utf8), previousHash: event.previousHash,
        hash: event.hash, claims: nil, erasedBy: erasureId)
    }
    for (old, new) in renamed {
      state.eventsOfStream[new] = state.eventsOfStream.removeValue(forKey: old)
    }
  }

  /// Every row derived from the erased ones: index, views (of every version), changes and
  /// their deliveries, derivation markers, downloads, revenue, the backend's aliases.
  func dropDerived(in state: inout State) {
    let accounts = Set(tokens)
    for token in tokens {
      for stream in state.streamsOfAccount.removeValue(forKey: token) ?? [] {
        state.accountsOfStream[stream]?.remove(token)
        if state.accountsOfStream[stream]?.isEmpty == true { state.accountsOfStream[stream] = nil }
      }
      state.joins[token] = nil
      state.views[token] = nil
      state.derivations[token] = nil
      state.statusHistory[token] = nil
      for version in state.versionRows.keys { state.versionRows[version]?[token] = nil }
      if let alias = state.aliases.removeValue(forKey: token) { state.aliasHolders[alias] = nil }
    }
    for stream in whole { state.accountsOfStream[stream] = nil }
    state.changes.removeAll { accounts.contains($0.appAccountToken) }
    for endpoint in state.deliveries.keys {
      state.deliveries[endpoint] = state.deliveries[endpoint]?.filter {
        !accounts.contains($0.value.token)
      }
    }
    state.downloads = state.downloads.filter { _, sighting in
      !(sighting.token.map(accounts.contains) ?? false)
        && !identifiers.contains(sighting.chain) && !identifiers.contains(sighting.appTransactionId)
    }
    state.revenue = state.revenue.filter { chain, revenue in
      !whole.contains(chain)
        && !revenue.timelines.contains { identifiers.contains($0.originalTransactionId) }
    }
  }

  private static func randomId() -> String { UUID().uuidString.lowercased() }
}
