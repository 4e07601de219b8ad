import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: SupportReads {
  public func accounts(
    matching query: String, environments: [String], consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<[AccountSearchMatch]> {
    state.withLock { state in
      var found: Set<AccountSearchMatch> = []
      func holders(_ streams: some Sequence<String>, matched: String) {
        for stream in streams {
          for token in state.accountsOfStream[stream] ?? [] {
            found.insert(AccountSearchMatch(token: token, matched: matched))
          }
        }
      }
      if state.streamsOfAccount[query.lowercased()] != nil {
        found.insert(AccountSearchMatch(token: query.lowercased(), matched: "appAccountToken"))
      }
      holders(environments.map { "sub:\($0):\(query)" }, matched: "originalTransactionId")
      let appleEvents = state.events.filter { $0.eventType.hasPrefix("appstore.") }
      func streams(ofTransaction id: String) -> Set<String> {
        Set(appleEvents.filter { Self.transactionId(of: $0) == id }.map(\.streamId))
      }
      holders(streams(ofTransaction: query), matched: "transactionId")
      holders(
        state.downloads.values.filter {
          environments.contains($0.environment) && $0.appTransactionId == query
        }.map { "sub:\($0.environment):\($0.chain)" }, matched: "appTransactionId")
      let ordered = state.events.filter { $0.streamId == "order:\(query)" }.flatMap { event in
        (Self.object(event.payload)?["orderLookedUp"] as? [String: Any])?["transactionIds"]
          as? [String] ?? []
      }
      holders(Set(ordered.flatMap(streams(ofTransaction:))), matched: "orderId")
      if let token = state.aliasHolders[query] {
        found.insert(AccountSearchMatch(token: token, matched: "alias"))
      }
      let sorted = found.sorted { ($0.token, $0.matched) < ($1.token, $1.matched) }
      return ReadAnswer(value: Array(sorted.prefix(AccountSearchMatch.limit)))
    }
  }

  public func accountList(
    _ filter: AccountListFilter, after key: AccountListKey?, limit: Int, countTotal: Bool,
    consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ListRead<AccountListRow>> {
    state.withLock { state in
      let rows = state.views.map { token, row in
        AccountListRow(
          appAccountToken: token,
          changedAt: row.view?.interval.from ?? Timestamp(milliseconds: 0),
          summary: row.view?.summary)
      }.filter(filter.admits).sorted { $0.comesBefore($1) }
      let after = rows.filter { row in
        guard let key else { return true }
        return (row.changedAt.milliseconds, row.appAccountToken)
          < (key.changedAt.milliseconds, key.appAccountToken)
      }
      return ReadAnswer(
        value: ListRead(rows: Array(after.prefix(limit)), total: countTotal ? rows.count : nil))
    }
  }

  public func statusTransitions(
    _ filter: StatusTransitionFilter, after key: StatusTransitionKey?, limit: Int,
    countTotal: Bool, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<ListRead<StatusTransitionRow>> {
    state.withLock { state in
      let rows = state.statusHistory.values.joined().filter {
        $0.to == filter.status && $0.effectiveAt >= filter.from && $0.effectiveAt < filter.before
      }.sorted {
        ($0.effectiveAt.milliseconds, $0.appAccountToken, $0.ordinal)
          > ($1.effectiveAt.milliseconds, $1.appAccountToken, $1.ordinal)
      }
      let after = rows.filter { key?.precedes($0) ?? true }
      return ReadAnswer(
        value: ListRead(rows: Array(after.prefix(limit)), total: countTotal ? rows.count : nil))
    }
  }

  public func newestEvents(limit: Int, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<[LogEntrySummary]>
  {
    state.withLock { state in
      let entries = state.events.reversed().prefix(limit).map { event in
        let notification = Self.object(event.payload)?["notification"] as? [String: Any]
        let type = notification?["notificationType"] as? String
        let subtype = notification?["subtype"] as? String
        return LogEntrySummary(
          recordedAt: event.recordedAt, eventType: event.eventType, streamId: event.streamId,
          notification: event.eventType.hasPrefix("appstore.notification.")
            ? [type, subtype].compactMap { $0 }.joined(separator: "/") : nil,
          accounts: (state.accountsOfStream[event.streamId] ?? []).sorted(),
          key: event.idempotencyKey)
      }
      return ReadAnswer(value: Array(entries))
    }
  }

  public func overview(since: Date, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<ConsoleOverview>
  {
    state.withLock { state in
      var overview = ConsoleOverview()
      overview.accounts = state.views.count
      for row in state.views.values {
        guard let summary = row.view?.summary else { continue }
        for subscription in summary.subscriptions {
          overview.subscriptionsByStatus[Int(subscription.status), default: 0] += 1
        }
        for entitlement in summary.entitlements where entitlement.active {
          overview.entitlementsInForce[entitlement.entitlement, default: 0] += 1
        }
      }
      let notifications = state.events.filter {
        $0.eventType.hasPrefix("appstore.notification.")
      }
      if let last = notifications.last {
        overview.lastNotificationAt = last.recordedAt
        overview.lastNotificationType =
          Self.notification(last)?.facts["notificationType"]
          as? String
        overview.notificationsSince = notifications.filter { $0.recordedAt >= since }.count
      }
      return ReadAnswer(value: overview)
    }
  }

  public func logCounts() async throws(EventStoreError) -> LogCounts {
    state.withLock { state in
      LogCounts(
        events: state.events.count, streams: state.eventsOfStream.count,
        accounts: state.views.count)
    }
  }

  public func notUnderstood(
    knownTypes: [String], knownBodies: [String], after key: NotUnderstoodKey?, limit: Int,
    countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<NotUnderstoodNotification> {
    state.withLock { state in
      let (events, positionOfKey) = (state.events, state.positionOfKey)
      let listed = events.indices.reversed().filter {
        events[$0].eventType == "appstore.notification.v3" && events[$0].erasedBy == nil
      }
      .compactMap { position -> (Int, NotUnderstoodNotification)? in
        let event = events[position]
        let (facts, claims) = Self.notification(event) ?? ([:], [:])
        let uuid = claims["notificationUUID"] as? String ?? ""
        let type = facts["notificationType"] as? String
        let bodies = claims.filter { $0.value is [String: Any] }.keys.sorted()
        let unrouted = event.streamId.hasPrefix(NotUnderstoodNotification.unroutedStreamPrefix)
        guard
          unrouted || !knownTypes.contains(type ?? "")
            || bodies.contains(where: { !knownBodies.contains($0) })
        else { return nil }
        let routedTo =
          unrouted
          ? positionOfKey["asn2:\(uuid)"].map { events[$0].streamId } : nil
        return (
          position,
          NotUnderstoodNotification(
            notificationUUID: uuid, notificationType: type, subtype: facts["subtype"] as? String,
            signedDate: Self.milliseconds(facts["signedDate"]).map(Timestamp.init(milliseconds:)),
            recordedAt: event.recordedAt, bodyObjects: bodies, streamId: event.streamId,
            streamVersion: event.streamVersion, routedTo: routedTo)
        )
      }
      // The page after `key` starts below the event it names, as the log orders them.
      let start = key.flatMap { key in
        state.eventsOfStream[key.streamId]?.first { events[$0].streamVersion == key.streamVersion }
      }
      let rows = listed.filter { position, _ in start.map { position < $0 } ?? (key == nil) }
        .prefix(limit).map(\.1)
      return ListRead(rows: rows, total: countTotal ? listed.count : nil)
    }
  }

  public func notificationCount(in stream: String, type: String, since: Int64)
    async throws(EventStoreError) -> Int
  {
    state.withLock { state in
      Self.recorded(of: [stream], in: state).filter { event in
        guard let facts = Self.notification(event)?.facts else { return false }
        return facts["notificationType"] as? String == type
          && (Self.milliseconds(facts["signedDate"]) ?? .min) >= since
      }.count
    }
  }

  public func extensionSummary(in stream: String, requestIdentifier: String)
    async throws(EventStoreError) -> (succeeded: Int64?, failed: Int64?)?
  {
    state.withLock { state in
      for event in Self.recorded(of: [stream], in: state) {
        guard let summary = Self.notification(event)?.claims["summary"] as? [String: Any],
          summary["requestIdentifier"] as? String == requestIdentifier
        else { continue }
        return (
          Self.milliseconds(summary["succeededCount"]), Self.milliseconds(summary["failedCount"])
        )
      }
      return nil
    }
  }

  public func event(withKey key: String) async throws(EventStoreError)
    -> (streamId: String, streamVersion: Int64, recordedAt: Date)?
  {
    state.withLock { state in
      state.positionOfKey[key].map {
        let event = state.events[$0]
        return (event.streamId, event.streamVersion, event.recordedAt)
      }
    }
  }

  /// The transaction an Apple event is about, looked for where each kind of event holds it.
  static func transactionId(of event: RecordedEvent) -> String? {
    guard let facts = object(event.payload) else { return nil }
    let paths = [
      ["notification", "transaction"], ["transaction", "transaction"], ["status", "transaction"],
      ["transaction"], ["notification", "data", "signedTransactionInfo"],
    ]
    for path in paths {
      var node: Any? = facts
      for member in path { node = (node as? [String: Any])?[member] }
      if let id = (node as? [String: Any])?["transactionId"] as? String { return id }
    }
    return nil
  }
}
