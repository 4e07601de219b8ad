import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The promises of the ports the services use (the feed's checkpoints, the views and their
/// changes, the change feed, deliveries, refund requests, support's reads, maintenance),
/// checked against PostgreSQL and memory alike.
@Suite struct ServicePortConformanceTests {
  static let alice = StorageConformanceTests.alice
  static let bob = StorageConformanceTests.bob

  /// Appends a debit of `account` to its own stream, indexed under it.
  static func append(_ key: String, for account: String, in storage: LedgerStorage)
    async throws -> AppendResult
  {
    try await storage.log.append(
      [StorageConformanceTests.debit(key, account: account)], to: "debits:\(account)",
      indexing: StreamIndex(keys: [account], streams: ["debits:\(account)"]))
  }

  static func change(_ account: String, _ subject: String, at milliseconds: Int64)
    -> DerivedChange
  {
    DerivedChange(
      AccountChange(.entitlementGranted, account: account, subject: subject, new: "true"),
      occurredAt: Timestamp(milliseconds: milliseconds), cause: "k-\(subject)")
  }

  static func derived(_ account: String, version: Int64, first: Int64, _ changes: [DerivedChange])
    -> DerivedAccountChanges
  {
    DerivedAccountChanges(
      token: account, expectedVersion: version, events: 1, instant: nil, due: nil,
      firstOrdinal: first, changes: changes)
  }

  static func view(_ account: String, changes: Int64, json: String = "{}") -> ProjectedAccountView {
    ProjectedAccountView(
      token: account, changes: changes,
      summary: AccountSummary(entitlements: [], subscriptions: [], consumables: []),
      summaryJSON: json, interval: StableInterval(from: nil, until: nil))
  }

  @Test(arguments: StorageKind.allCases)
  func anAppendExpectingAVersionIsRefusedElsewhereAndTheFeedAndCheckpointsHoldOrder(
    _ kind: StorageKind
  ) async throws {
    try await kind.withStorage { storage in
      #expect(try await storage.log.feedHead() == nil)
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k1")], to: "s1", expected: .noStream)
      let refused = await #expect(throws: EventStoreError.self) {
        _ = try await storage.log.append(
          [StorageConformanceTests.debit("k2")], to: "s1", expected: .exact(2))
      }
      #expect(refused?.code == .wrongExpectedVersion)
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k2")], to: "s1", expected: .exact(1))
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k3")], to: "s2", indexing: nil)
      #expect(try await storage.log.readStreams(["s1"]).map(\.idempotencyKey) == ["k1", "k2"])

      let entries = try await storage.log.readFeedEntries(after: .beginning, limit: 10)
      #expect(entries.map(\.streamId) == ["s1", "s1", "s2"])
      let rest = try await storage.log.readFeedEntries(after: entries[0].position, limit: 1)
      #expect(rest.map(\.position) == [entries[1].position])

      #expect(try await storage.log.feedHead() == entries.last?.position)

      // Stream ids by prefix, page by page, each once however many events it holds.
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k4")], to: "sub:2", indexing: nil)
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k5")], to: "sub:1", indexing: nil)
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k6")], to: "sub:1", indexing: nil)
      _ = try await storage.log.append(
        [StorageConformanceTests.debit("k7")], to: "subway", indexing: nil)
      #expect(try await storage.log.streamIds(prefixed: "sub:", after: "", limit: 1) == ["sub:1"])
      #expect(
        try await storage.log.streamIds(prefixed: "sub:", after: "sub:1", limit: 5) == ["sub:2"])
      #expect(try await storage.log.streamIds(prefixed: "sub:", after: "sub:2", limit: 5).isEmpty)
      #expect(try await storage.log.streamIds(prefixed: "s", after: "", limit: 9).count == 5)
      #expect(
        try await storage.log.feedHead()
          == storage.log.readFeedEntries(after: .beginning, limit: 10).last?.position)

      #expect(try await storage.log.checkpoint("reader") == nil)
      try await storage.log.moveCheckpoint("reader", from: nil, to: entries[1].position)
      let conflict = await #expect(throws: EventStoreError.self) {
        try await storage.log.moveCheckpoint("reader", from: nil, to: entries[2].position)
      }
      #expect(conflict?.code == .checkpointConflict)
      #expect(try await storage.log.checkpoint("reader") == entries[1].position)
    }
  }

  /// A window of transitions selects on when each took effect by Apple's data, never on
  /// when the ledger recorded it; a stored view's status history replaces the account's whole,
  /// and one that gives way to a newer view changes nothing.
  @Test(arguments: StorageKind.allCases)
  func transitionsSelectOnTheEffectiveTimeAndFollowTheStoredView(_ kind: StorageKind)
    async throws
  {
    let day: Int64 = 86_400_000
    try await kind.withStorage { storage in
      for (offset, account) in [Self.alice, Self.bob].enumerated() {
        _ = try await Self.append("t\(offset)", for: account, in: storage)
      }
      func entered(_ account: String, _ subject: String, on days: [Int64]) -> [StatusTransitionRow]
      {
        days.enumerated().map { ordinal, day0 in
          StatusTransitionRow(
            ordinal: ordinal, appAccountToken: account, originalTransactionId: subject,
            from: 1, to: 3, effectiveAt: Timestamp(milliseconds: day0 * day),
            recordedAt: Timestamp(milliseconds: 400 * day), cause: "k-\(subject)-\(ordinal)")
        }
      }
      func view(_ account: String, changes: Int64, _ history: [StatusTransitionRow])
        -> ProjectedAccountView
      {
        var view = Self.view(account, changes: changes)
        view.history = history
        return view
      }
      try await storage.views.store(
        [
          view(Self.alice, changes: 1, entered(Self.alice, "a-1", on: [10, 300])),
          view(Self.bob, changes: 1, entered(Self.bob, "b-1", on: [305])),
        ], projection: "p")
      func entered(
        from: Int64, before: Int64, after key: StatusTransitionKey? = nil, limit: Int = 10
      )
        async throws -> ListRead<StatusTransitionRow>
      {
        try await storage.support.statusTransitions(
          StatusTransitionFilter(
            status: 3, from: Timestamp(milliseconds: from * day),
            before: Timestamp(milliseconds: before * day)),
          after: key, limit: limit, countTotal: key == nil, consistency: .exact
        ).value
      }
      let window = try await entered(from: 299, before: 306)
      #expect(window.rows.map(\.originalTransactionId) == ["b-1", "a-1"])
      #expect(window.total == 2)
      #expect(
        window.rows.map(\.effectiveAt) == [305, 300].map { Timestamp(milliseconds: $0 * day) })
      #expect(window.rows.allSatisfy { $0.recordedAt == Timestamp(milliseconds: 400 * day) })
      #expect(window.rows.last?.ordinal == 1 && window.rows.last?.cause == "k-a-1-1")
      // Paged by key: the second page holds the rest, once.
      let first = try await entered(from: 0, before: 500, limit: 2)
      let rest = try await entered(
        from: 0, before: 500, after: first.rows.last.map(StatusTransitionKey.init), limit: 2)
      #expect(first.total == 3)
      #expect(
        (first.rows + rest.rows).map(\.effectiveAt.milliseconds) == [305, 300, 10].map { $0 * day })
      // The day the ledger recorded them holds none.
      let recordedDay = try await entered(from: 399, before: 401)
      #expect(recordedDay.rows.isEmpty && recordedDay.total == 0)
      // A newer view's history replaces the account's; an older view's changes nothing.
      _ = try await Self.append("t2", for: Self.alice, in: storage)
      try await storage.views.store(
        [view(Self.alice, changes: 2, entered(Self.alice, "a-1", on: [10]))], projection: "p")
      try await storage.views.store(
        [view(Self.alice, changes: 1, entered(Self.alice, "a-1", on: [10, 302]))],
        projection: "p")
      let after = try await entered(from: 299, before: 306)
      #expect(after.rows.map(\.originalTransactionId) == ["b-1"] && after.total == 1)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aViewNeverGivesWayToOneIncludingFewerAppends(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      _ = try await Self.append("a1", for: Self.alice, in: storage)
      _ = try await Self.append("a2", for: Self.alice, in: storage)
      let inputs = try await storage.views.inputs(of: [Self.alice, Self.bob])
      let alice = try #require(inputs[Self.alice])
      #expect(inputs[Self.bob] == nil)
      #expect(alice.changes == 2)
      #expect(alice.events.count == 2 && alice.places.count == 2)
      #expect(alice.derivationSteps.allSatisfy { $0.settled })
      #expect(
        alice.derivation
          == ChangeDerivationMarker(
            version: nil, events: nil, changes: nil, instant: nil))

      #expect(try await storage.views.foreign(to: "rules-1", limit: 10) == [Self.alice])
      #expect(
        try await storage.views.store([Self.view(Self.alice, changes: 2)], projection: "rules-1")
          == 1)
      #expect(
        try await storage.views.store([Self.view(Self.alice, changes: 1)], projection: "rules-1")
          == 0)
      #expect(try await storage.views.foreign(to: "rules-1", limit: 10).isEmpty)
      let stored = try #require(try await storage.views.storedViews(of: [Self.alice])[Self.alice])
      #expect(stored.changes == 2 && stored.projectedChanges == 2 && stored.projection == "rules-1")
      #expect(try await storage.views.accounts(after: "", limit: 10, shard: .whole) == [Self.alice])
      #expect(try await storage.views.expired(at: Timestamp(milliseconds: .max), limit: 10).isEmpty)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func changesAppendOnlyAtTheDerivationReadAndTakePositionsInTimeOrder(_ kind: StorageKind)
    async throws
  {
    try await kind.withStorage { storage in
      _ = try await Self.append("a1", for: Self.alice, in: storage)
      _ = try await Self.append("b1", for: Self.bob, in: storage)
      #expect(try await storage.views.underived(limit: 10) == [Self.alice, Self.bob])
      let moved = try await storage.views.appendChanges([
        Self.derived(Self.alice, version: 0, first: 0, [Self.change(Self.alice, "pro", at: 2_000)]),
        Self.derived(Self.bob, version: 0, first: 0, [Self.change(Self.bob, "pro", at: 1_000)]),
      ])
      #expect(moved == [Self.alice, Self.bob])
      // A second projector that read the same derivation appends nothing.
      let late = try await storage.views.appendChanges([
        Self.derived(Self.alice, version: 0, first: 0, [Self.change(Self.alice, "pro", at: 2_000)])
      ])
      #expect(late.isEmpty)
      #expect(try await storage.views.underived(limit: 10).isEmpty)
      let feed = storage.changes
      #expect(try await feed.head() == 2)
      let all = try await feed.changes(after: 0, limit: 10, account: nil, consistency: .exact).value
      #expect(all.changes.map(\.appAccountToken) == [Self.bob, Self.alice])
      #expect(all.changes.map(\.position) == [1, 2])
      #expect(all.changes[1].id == ChangeRecord.id(account: Self.alice, ordinal: 0))
      #expect(all.changes[1].cause == "k-pro")
      let beyond = try await feed.changes(after: 5, limit: 10, account: nil, consistency: .exact)
      #expect(beyond.value.changes.isEmpty && beyond.value.count == 2)

      _ = try await storage.views.appendChanges([
        Self.derived(Self.alice, version: 1, first: 1, [Self.change(Self.alice, "max", at: 3_000)])
      ])
      let mine = try await feed.changes(
        after: 0, limit: 10, account: Self.alice, consistency: .exact)
      #expect(mine.value.changes.map(\.ordinal) == [0, 1])
      let newest = try await feed.newestChanges(
        of: Self.alice, offset: 0, limit: 1, consistency: .exact
      ).value
      #expect(newest.changes.map(\.ordinal) == [1] && newest.count == 2)
      #expect(try await feed.changes(ofAccounts: [Self.alice])[Self.alice]?.count == 2)
      #expect(try await feed.changes(at: [3, 1]).map(\.position) == [1, 3])
      #expect(try await feed.firstPosition(recordedSince: Date().addingTimeInterval(3_600)) == 4)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func deliveriesGoOnePerAccountInOrderAndAreCountedAndResent(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      _ = try await Self.append("a1", for: Self.alice, in: storage)
      _ = try await Self.append("b1", for: Self.bob, in: storage)
      _ = try await storage.views.appendChanges([
        Self.derived(Self.alice, version: 0, first: 0, [Self.change(Self.alice, "pro", at: 1_000)])
      ])
      let queue = storage.deliveries
      try await queue.register("hooks.example/changes")
      // Registered at the head: the change before it is not queued.
      #expect(try await queue.enqueue("hooks.example/changes", limit: 100) == 0)
      _ = try await storage.views.appendChanges([
        Self.derived(
          Self.alice, version: 1, first: 1,
          [Self.change(Self.alice, "max", at: 2_000), Self.change(Self.alice, "gold", at: 3_000)]),
        Self.derived(Self.bob, version: 0, first: 0, [Self.change(Self.bob, "pro", at: 2_500)]),
      ])
      #expect(try await queue.enqueue("hooks.example/changes", limit: 100) == 3)
      let claims = try await queue.claim("hooks.example/changes", limit: 10, lease: .seconds(60))
      // Alice's second change waits for her first; Bob's goes beside it.
      #expect(claims.map(\.position) == [2, 3])
      #expect(claims.allSatisfy { $0.attempt == 1 })
      #expect(
        try await queue.claim("hooks.example/changes", limit: 10, lease: .seconds(60)).isEmpty)
      try await queue.record(
        [
          ChangeDeliveryOutcome(
            position: 2, state: .delivered, status: 200, error: nil, retryAt: nil),
          ChangeDeliveryOutcome(
            position: 3, state: .dead, status: 500, error: "gone", retryAt: nil),
        ], endpoint: "hooks.example/changes")
      let counts = try #require(try await queue.counts().first)
      #expect(counts.endpoint == "hooks.example/changes")
      #expect((counts.delivered, counts.waiting, counts.retrying, counts.dead) == (1, 1, 0, 1))
      let log = try await queue.deliveries(
        ChangeDeliveryFilter(), after: nil, limit: 10, countTotal: true)
      #expect(log.rows.map(\.position) == [4, 3, 2] && log.total == 3)
      let next = try await queue.deliveries(
        ChangeDeliveryFilter(), after: ChangeDeliveryKey(position: 4, endpoint: counts.endpoint),
        limit: 10, countTotal: false)
      #expect(next.rows.map(\.position) == [3, 2] && next.total == nil)
      // The failing list holds what the counts call retrying and dead.
      let failing = try await queue.deliveries(
        ChangeDeliveryFilter(failing: true), after: nil, limit: 10, countTotal: true)
      #expect(failing.total == counts.retrying + counts.dead && failing.rows.count == 1)
      #expect(log.rows.first { $0.position == 3 }?.lastError == "gone")
      #expect(try await queue.deliveries(ofPositions: [2]).map(\.state) == [.delivered])
      #expect(try await queue.resend("hooks.example/changes", from: 2) == 3)
      #expect(
        try await queue.deliveries(
          ChangeDeliveryFilter(state: .pending), after: nil, limit: 10, countTotal: true
        ).total == 3)
      #expect(try await queue.resend("nobody.example/x", from: 1) == 0)
      #expect(try await queue.prune("hooks.example/changes", deliveredBefore: .seconds(0)) == 0)
    }
  }

  static func requested(_ id: String, transaction: String, at milliseconds: Int64) -> NewEvent {
    let event = ConsumptionEvent.requested(
      ConsumptionEvent.Requested(
        requestId: id, environment: "Sandbox", transactionId: transaction,
        originalTransactionId: "9\(transaction)", productId: "gems", productType: .consumable,
        appAccountToken: nil, reason: nil, requestedAt: Timestamp(milliseconds: milliseconds)))
    return NewEvent(
      eventType: event.eventType, idempotencyKey: "request:\(id)",
      payload: EventCodec.payload(of: event), environment: "Sandbox")
  }

  @Test(arguments: StorageKind.allCases)
  func refundRequestsAreFoundByStateIdAndDueTime(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let now = Int64(Date().timeIntervalSince1970 * 1000)
      _ = try await storage.log.append(
        [Self.requested("AAA-1", transaction: "11", at: now - 1_000)],
        to: "consumption:Sandbox:aaa-1", indexing: nil)
      _ = try await storage.log.append(
        [Self.requested("BBB-2", transaction: "22", at: now - 500)],
        to: "consumption:Sandbox:bbb-2", indexing: nil)
      let index = storage.refundRequests
      let all = try await index.requests(inStates: [], after: nil, limit: 10, countTotal: true)
      #expect(
        all.rows.map(\.streamId) == ["consumption:Sandbox:bbb-2", "consumption:Sandbox:aaa-1"])
      #expect(all.total == 2)
      // Keyset pages: one row each, the second after the first's key, none after that.
      let first = try await index.requests(inStates: [], after: nil, limit: 1, countTotal: false)
      #expect(first.rows.map(\.streamId) == ["consumption:Sandbox:bbb-2"] && first.total == nil)
      let second = try await index.requests(
        inStates: [], after: first.rows.last, limit: 1, countTotal: false)
      #expect(second.rows.map(\.streamId) == ["consumption:Sandbox:aaa-1"])
      #expect(
        try await index.requests(inStates: [], after: second.rows.last, limit: 1, countTotal: true)
          .rows.isEmpty)
      let answered = try await index.requests(
        inStates: ["answered"], after: nil, limit: 10, countTotal: true)
      #expect(answered.rows.isEmpty && answered.total == 0)
      #expect(try await index.requests(withId: "aaa-1") == ["consumption:Sandbox:aaa-1"])
      #expect(try await index.requests(withId: "22") == ["consumption:Sandbox:bbb-2"])
      #expect(
        try await index.dueRequests(now: now, limit: 10)
          == ["consumption:Sandbox:aaa-1", "consumption:Sandbox:bbb-2"])
      #expect(try await index.dueRequests(now: now - 2_000, limit: 10).isEmpty)
      let counts = try await index.requestCounts()
      #expect(
        counts == [RefundRequestCount(state: "pending", late: false, decision: nil, count: 2)])
    }
  }

  @Test(arguments: StorageKind.allCases)
  func supportFindsAccountsAndEventsAndCountsTheLog(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      _ = try await Self.append("a1", for: Self.alice, in: storage)
      _ = try await Self.append("b1", for: Self.bob, in: storage)
      let support = storage.support
      let found = try await support.accounts(
        matching: Self.alice.uppercased(), environments: ["Sandbox"], consistency: .exact)
      #expect(found.value == [AccountSearchMatch(token: Self.alice, matched: "appAccountToken")])
      #expect(
        try await support.accounts(
          matching: "nobody", environments: ["Sandbox"], consistency: .exact
        )
        .value.isEmpty)
      let counts = try await support.logCounts()
      #expect((counts.events, counts.streams, counts.accounts) == (2, 2, 2))
      let stored = try #require(try await support.event(withKey: "b1"))
      #expect(stored.streamId == "debits:\(Self.bob)" && stored.streamVersion == 1)
      #expect(try await support.event(withKey: "zz") == nil)
      let overview = try await support.overview(since: .distantPast, consistency: .exact).value
      #expect(overview.accounts == 2 && overview.notificationsSince == 0)
      let notUnderstood = try await support.notUnderstood(
        knownTypes: [], knownBodies: [], after: nil, limit: 10, countTotal: true)
      #expect(notUnderstood.rows.isEmpty && notUnderstood.total == 0)
    }
  }

  /// An account whose streams outnumber a page comes whole, in one page: the pages are
  /// whole accounts however the storage reads its index.
  @Test(arguments: StorageKind.allCases)
  func rebuildPagesKeepAnAccountWithManyStreamsWhole(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      for stream in ["a", "b", "c"] {
        for event in 1...2 {
          _ = try await storage.log.append(
            [StorageConformanceTests.debit("many-\(stream)\(event)", account: Self.alice)],
            to: "debits-\(stream):\(Self.alice)",
            indexing: StreamIndex(keys: [Self.alice], streams: ["debits-\(stream):\(Self.alice)"]))
        }
      }
      _ = try await Self.append("b1", for: Self.bob, in: storage)
      let pages = try await storage.maintenance.withAccountEventPages(shard: .whole, pageSize: 1) {
        pages in
        var found: [[String: Int]] = []
        while let page = try await pages.next() {
          found.append(Dictionary(uniqueKeysWithValues: page.map { ($0.token, $0.rows.count) }))
        }
        return found
      }
      #expect(pages == [[Self.alice: 6], [Self.bob: 1]])
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aRebuildFillsAVersionSwitchesItLiveAndKeepsTheOldForComparison(_ kind: StorageKind)
    async throws
  {
    try await kind.withStorage { storage in
      _ = try await Self.append("a1", for: Self.alice, in: storage)
      _ = try await Self.append("b1", for: Self.bob, in: storage)
      let store = storage.maintenance
      let chain = try await store.checkHashChain(shard: .whole)
      #expect(chain.isIntact && chain.checkedEvents == 2)
      #expect(try await store.events(after: .beginning, limit: 10, shard: .whole).count == 2)
      #expect(try await store.streams(of: Self.alice) == ["debits:\(Self.alice)"])
      #expect(try await store.accountCount() == 2)

      let pages = try await store.withAccountEventPages(shard: .whole, pageSize: 1) { pages in
        var tokens: [[String]] = []
        while let page = try await pages.next() { tokens.append(page.map(\.token)) }
        return tokens
      }
      #expect(pages == [[Self.alice], [Self.bob]])

      #expect(try await store.liveViewsVersion() == 1)
      let version = try await store.beginViewsVersion()
      #expect(version == 2)
      try await store.store(
        [Self.view(Self.alice, changes: 1, json: #"{"a":1}"#), Self.view(Self.bob, changes: 1)],
        intoVersion: version, projection: "rules-2")
      // Alice is appended to after the rebuild read her: the switch names her.
      _ = try await Self.append("a2", for: Self.alice, in: storage)
      #expect(try await store.switchLive(to: version) == [Self.alice])
      #expect(try await store.liveViewsVersion() == 2)
      #expect(try await store.viewsVersions().map(\.state) == ["retired", "live"])
      let differences = try await store.viewDifferences(from: 1)
      #expect(differences.map(\.appAccountToken) == [Self.alice, Self.bob])
      let refused = await #expect(throws: EventStoreError.self) {
        try await store.dropViewsVersion(2)
      }
      #expect(refused?.code == .viewsVersionRefused)
      try await store.dropViewsVersion(1)
      #expect(try await store.viewsVersions().map(\.state) == ["dropped", "live"])
    }
  }
}
