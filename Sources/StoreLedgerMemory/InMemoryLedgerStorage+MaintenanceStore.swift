import Crypto
import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: MaintenanceStore {
  public func checkHashChain(shard: WorkShard) async throws(EventStoreError) -> HashChainReport {
    state.withLock { state in
      var checked = 0
      var erased = 0
      var mismatches: [HashChainReport.Mismatch] = []
      for (stream, ordinals) in state.eventsOfStream where Self.holds(shard, stream) {
        var previous: [UInt8] = []
        for (offset, ordinal) in ordinals.enumerated() {
          let event = state.events[ordinal]
          checked += 1
          if event.erasedBy != nil { erased += 1 }
          // A tombstone's content is gone: its hash is checked by its links alone.
          let reason: HashChainReport.Mismatch.Reason? =
            if event.streamVersion != Int64(offset + 1) {
              .versionGap
            } else if event.erasedBy == nil,
              event.hash
                != Array(
                  SHA256.hash(
                    data: event.previousHash + event.payload + Array(event.idempotencyKey.utf8)))
            {
              .contentChanged
            } else if event.previousHash != previous {
              .brokenLink
            } else {
              nil
            }
          if let reason {
            mismatches.append(
              HashChainReport.Mismatch(
                streamId: stream, streamVersion: event.streamVersion, position: event.position,
                reason: reason))
          }
          previous = event.hash
        }
      }
      return HashChainReport(
        checkedEvents: checked, erasedEvents: erased,
        firstMismatch: mismatches.min { $0.position < $1.position })
    }
  }

  public func leaves(after position: FeedPosition, limit: Int) async throws(EventStoreError)
    -> [LogLeaf]
  {
    state.withLock { state in
      state.events.lazy.filter { $0.position > position }.prefix(limit).map {
        LogLeaf(
          position: $0.position, streamId: $0.streamId, streamVersion: $0.streamVersion,
          hash: $0.hash)
      }
    }
  }

  public func events(after position: FeedPosition, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [RecordedEvent]
  {
    state.withLock { state in
      Array(
        state.events.lazy.filter { $0.position > position && Self.holds(shard, $0.streamId) }
          .prefix(limit))
    }
  }

  public func beginViewsVersion() async throws(EventStoreError) -> Int {
    let now = now()
    return state.withLock { state in
      for (version, entry) in state.versions where entry.state == "building" {
        state.versions[version]?.state = "abandoned"
        state.versions[version]?.retiredAt = now
        state.versionRows[version] = nil
      }
      let version = (state.versions.keys.max() ?? 0) + 1
      state.versions[version] = AccountViewsVersion(
        version: version, state: "building", projection: nil, accounts: nil, createdAt: now,
        switchedAt: nil, retiredAt: nil)
      state.versionRows[version] = [:]
      return version
    }
  }

  public func liveViewsVersion() async throws(EventStoreError) -> Int? {
    state.withLock { state in state.versions.first { $0.value.state == "live" }?.key }
  }

  public func accountCount() async throws(EventStoreError) -> Int {
    state.withLock { $0.streamsOfAccount.count }
  }

  public func store(
    _ views: [ProjectedAccountView], intoVersion version: Int, projection: String
  ) async throws(EventStoreError) {
    try state.withLock { state throws(EventStoreError) in
      try Self.require(version, "building", in: state)
      for view in views {
        state.versionRows[version, default: [:]][view.token] = ViewRow(
          changes: view.changes, projectedChanges: view.changes, projection: projection,
          view: view)
        // The history is not versioned: a function of the log, it is rewritten in place.
        if let history = view.history { state.statusHistory[view.token] = history }
      }
    }
  }

  public func switchLive(to version: Int) async throws(EventStoreError) -> [String] {
    let now = now()
    return try state.withLock { state throws(EventStoreError) in
      try Self.require(version, "building", in: state)
      var rows = state.versionRows[version] ?? [:]
      // Every account's appends carry over: one appended to meanwhile is not current.
      for (token, live) in state.views { rows[token, default: ViewRow()].changes = live.changes }
      if let live = state.versions.first(where: { $0.value.state == "live" })?.key {
        state.versions[live]?.state = "retired"
        state.versions[live]?.retiredAt = now
        state.versionRows[live] = state.views
      }
      state.views = rows
      state.versionRows[version] = nil
      state.versions[version]?.state = "live"
      state.versions[version]?.switchedAt = now
      state.versions[version]?.accounts = rows.count
      state.versions[version]?.projection = rows.values.compactMap(\.projection).min()
      return rows.filter { $0.value.projectedChanges != $0.value.changes }.keys.sorted()
    }
  }

  public func dropViewsVersion(_ version: Int) async throws(EventStoreError) {
    try state.withLock { state throws(EventStoreError) in
      try Self.require(version, "retired", in: state)
      state.versionRows[version] = nil
      state.versions[version]?.state = "dropped"
    }
  }

  public func viewsVersions() async throws(EventStoreError) -> [AccountViewsVersion] {
    state.withLock { state in state.versions.values.sorted { $0.version < $1.version } }
  }

  public func viewDifferences(from version: Int) async throws(EventStoreError)
    -> [AccountViewDifference]
  {
    try state.withLock { state throws(EventStoreError) in
      try Self.require(version, "retired", in: state)
      let retired = state.versionRows[version] ?? [:]
      return Set(state.views.keys).union(retired.keys).sorted().compactMap { token in
        let live = state.views[token]?.view?.summaryJSON
        let old = retired[token]?.view?.summaryJSON
        return live == old
          ? nil : AccountViewDifference(appAccountToken: token, live: live, retired: old)
      }
    }
  }

  public func withAccountEventPages<Result: Sendable>(
    shard: WorkShard, pageSize: Int,
    _ body: @escaping @Sendable (AccountEventPages) async throws -> Result
  ) async throws -> Result {
    let accounts = state.withLock { state in
      state.streamsOfAccount.keys.filter { Self.holds(shard, $0) }.sorted().map { token in
        StoredAccountEvents(
          token: token, changes: state.views[token]?.changes ?? 0,
          rows: Self.recorded(of: (state.streamsOfAccount[token] ?? []).sorted(), in: state).map {
            StoredEventRow(
              type: $0.eventType, payload: $0.payload, key: $0.idempotencyKey,
              recordedAt: Timestamp($0.recordedAt))
          })
      }
    }
    let pages = PageCursor(accounts, pageSize: max(1, pageSize))
    return try await body(AccountEventPages { pages.next() })
  }

  public func unroutedPayloads() async throws(EventStoreError) -> [String] {
    state.withLock { state in
      state.events.compactMap { event -> String? in
        guard event.streamId.hasPrefix(NotUnderstoodNotification.unroutedStreamPrefix),
          let raw = event.rawSigned
        else { return nil }
        let uuid = Self.notification(event)?.claims["notificationUUID"] as? String ?? ""
        return state.positionOfKey["asn2:\(uuid)"] == nil ? raw : nil
      }
    }
  }

  public func purchaseStreams() async throws(EventStoreError) -> [String] {
    state.withLock { state in state.eventsOfStream.keys.filter { $0.hasPrefix("sub:") }.sorted() }
  }

  public func streams(startingWith eventType: String) async throws(EventStoreError)
    -> [String]
  {
    state.withLock { state in
      state.eventsOfStream.filter { _, ordinals in
        ordinals.first.map { state.events[$0].eventType == eventType } ?? false
      }.keys.sorted()
    }
  }

  public func streams(of account: String) async throws(EventStoreError) -> [String] {
    state.withLock { state in (state.streamsOfAccount[account] ?? []).sorted() }
  }

  private static func require(_ version: Int, _ wanted: String, in state: State)
    throws(EventStoreError)
  {
    guard state.versions[version]?.state == wanted else {
      throw EventStoreError(
        .viewsVersionRefused,
        "account views version \(version) is not \(wanted == "building" ? "being built" : wanted)")
    }
  }
}

/// Pages of accounts handed out one at a time.
private final class PageCursor: @unchecked Sendable {
  private var remaining: ArraySlice<StoredAccountEvents>
  private let pageSize: Int

  init(_ accounts: [StoredAccountEvents], pageSize: Int) {
    self.remaining = accounts[...]
    self.pageSize = pageSize
  }

  func next() -> [StoredAccountEvents]? {
    guard !remaining.isEmpty else { return nil }
    defer { remaining = remaining.dropFirst(pageSize) }
    return Array(remaining.prefix(pageSize))
  }
}
