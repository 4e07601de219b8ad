import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The promises every implementation of the storage ports keeps (``EventLog``,
/// ``AccountReads``, ``AccountIndex``), checked against PostgreSQL and memory alike.
@Suite struct StorageConformanceTests {
  static let alice = "00000000-0000-4000-8000-00000000000a"
  static let bob = "00000000-0000-4000-8000-00000000000b"

  static func debit(_ key: String, account: String = alice, environment: String? = nil)
    -> NewEvent
  {
    NewEvent(
      eventType: ConsumableDebited.eventType, idempotencyKey: key,
      payload: EventCodec.payload(
        of: .debit(
          ConsumableDebited(
            id: key, appAccountToken: account, productId: "gems", quantity: 1,
            debitedAt: Timestamp(milliseconds: 1_000)))),
      environment: environment)
  }

  @Test(arguments: StorageKind.allCases)
  func anEventIsItsKeyAndVersionsHaveNoGaps(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let first = try await storage.log.append(
        [Self.debit("k1"), Self.debit("k2")], to: "s1", indexing: nil)
      #expect(first.events.map(\.streamVersion) == [1, 2])
      #expect(!first.wasDuplicate)
      let again = try await storage.log.append(
        [Self.debit("k1"), Self.debit("k2")], to: "s1", indexing: nil)
      #expect(again.wasDuplicate)
      #expect(again.events == first.events)
      let third = try await storage.log.append([Self.debit("k3")], to: "s1", indexing: nil)
      #expect(third.events.map(\.streamVersion) == [3])
      #expect(third.events[0].position > first.events[1].position)
      let read = try await storage.log.readStreams(["s1"])
      #expect(read.map(\.idempotencyKey) == ["k1", "k2", "k3"])
      #expect(read.map(\.streamVersion) == [1, 2, 3])
      #expect(read[1].previousHash == read[0].hash && !read[0].hash.isEmpty)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aKeyBelongsToOneStreamAndABadAppendWritesNothing(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      _ = try await storage.log.append([Self.debit("k1")], to: "s1", indexing: nil)
      let elsewhere = await #expect(throws: EventStoreError.self) {
        _ = try await storage.log.append(
          [Self.debit("k2"), Self.debit("k1")], to: "s2", indexing: nil)
      }
      #expect(elsewhere?.code == .idempotencyKeyInOtherStream)
      let repeated = await #expect(throws: EventStoreError.self) {
        _ = try await storage.log.append(
          [Self.debit("k3"), Self.debit("k3")], to: "s2", indexing: nil)
      }
      #expect(repeated?.code == .invalidEvent)
      #expect(try await storage.log.readStreams(["s2"]).isEmpty)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aBatchIsWrittenWholeOrNotAtAll(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      _ = try await storage.log.append([Self.debit("k1")], to: "s1", indexing: nil)
      await #expect(throws: EventStoreError.self) {
        _ = try await storage.log.appendBatch([
          BatchAppend(event: Self.debit("k2"), streamId: "s2"),
          BatchAppend(event: Self.debit("k1"), streamId: "s3"),
        ])
      }
      #expect(try await storage.log.readStreams(["s2", "s3"]).isEmpty)
      let results = try await storage.log.appendBatch([
        BatchAppend(
          event: Self.debit("k2"), streamId: "s2",
          index: StreamIndex(keys: [Self.alice], streams: ["s2"])),
        BatchAppend(event: Self.debit("k1"), streamId: "s1"),
      ])
      #expect(results.map(\.wasDuplicate) == [false, true])
      #expect(results.map(\.streamId) == ["s2", "s1"])
      #expect(try await storage.index.accounts(holding: ["s2"]) == [Self.alice])
    }
  }

  @Test(arguments: StorageKind.allCases)
  func theIndexNamesTheHoldersOfAStream(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      _ = try await storage.log.append(
        [Self.debit("k1")], to: "s1",
        indexing: StreamIndex(keys: [Self.bob, Self.alice], streams: ["s1", "s2"]))
      #expect(try await storage.index.accounts(holding: ["s2"]) == [Self.alice, Self.bob])
      #expect(try await storage.index.accounts(holding: ["nothing"]).isEmpty)
      let next = try await storage.log.append([Self.debit("k2")], to: "s1", indexing: nil)
      #expect(next.holders.sorted() == [Self.alice, Self.bob])
      let recorded = try await storage.accounts.recordedEvents(
        of: Self.alice, consistency: .readYourWrites)
      #expect(recorded.map(\.idempotencyKey) == ["k1", "k2"])
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aDecisionSeesTheAccountAndARefusalAppendsNothing(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let index = StreamIndex(keys: [Self.alice], streams: ["acct"])
      _ = try await storage.log.append([Self.debit("k1")], to: "acct", indexing: index)
      struct Refused: Error {}
      let refusal = await #expect(throws: EventStoreError.self) {
        _ = try await storage.log.append(to: "acct", indexing: index, decidingOver: Self.alice) {
          _ in throw Refused()
        }
      }
      #expect(refusal?.code == .hookFailed)
      #expect(refusal?.underlying is Refused)
      let decided = try await storage.log.append(
        to: "acct", indexing: index, decidingOver: Self.alice
      ) { events in
        [Self.debit("k\(events.count + 1)")]
      }
      #expect(decided.events.map(\.idempotencyKey) == ["k2"])
      #expect(decided.events.map(\.streamVersion) == [2])
    }
  }

  @Test(arguments: StorageKind.allCases)
  func anAccountReadsItsStreamsOfOneEnvironmentWithoutRefundRequests(_ kind: StorageKind)
    async throws
  {
    try await kind.withStorage { storage in
      let index = StreamIndex(keys: [Self.alice], streams: ["s1"])
      _ = try await storage.log.append(
        [
          Self.debit("sandbox", environment: "Sandbox"),
          Self.debit("production", environment: "Production"), Self.debit("command"),
        ], to: "s1", indexing: index)
      let request = ConsumptionEvent.requested(
        .init(
          requestId: "r1", environment: "Sandbox", transactionId: "t2",
          originalTransactionId: "1000", productId: "gems", productType: nil,
          appAccountToken: Self.alice, reason: nil,
          requestedAt: Timestamp(milliseconds: 1_000)))
      _ = try await storage.log.append(
        [
          NewEvent(
            eventType: request.eventType, idempotencyKey: "consumption:Sandbox:r1:requested",
            payload: Array(try JSONEncoder().encode(request)), environment: "Sandbox")
        ], to: "consumption:Sandbox:r1",
        indexing: StreamIndex(keys: [Self.alice], streams: ["consumption:Sandbox:r1"]))
      let all = try await storage.accounts.events(
        of: Self.alice, environment: nil, consistency: .readYourWrites)
      #expect(all.value.map(\.key) == ["sandbox", "production", "command"])
      let sandbox = try await storage.accounts.events(
        of: Self.alice, environment: "Sandbox", consistency: .exact)
      #expect(sandbox.value.map(\.key) == ["sandbox", "command"])
      #expect(try await storage.index.refundRequestStreams(ofChain: "1000") == ["consumption:Sandbox:r1"])
      #expect(try await storage.index.refundRequestStreams(ofChain: "2000").isEmpty)
      let view = try await storage.accounts.storedView(
        of: Self.alice, part: .entitlements, consistency: .readYourWrites)
      #expect(view.value?.json == nil, "no projector has stored a view")
    }
  }

  @Test(arguments: StorageKind.allCases)
  func seatClaimsAreFoundByTheirIdsInAnyCase(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let claim = SeatClaimEvent(
        .claimed, originalTransactionId: "1000", requestIdentifier: "q1",
        seatClaimId: "abc-1", at: Timestamp(milliseconds: 1_000))
      _ = try await storage.log.append(
        [
          NewEvent(
            eventType: SeatClaimEvent.eventType, idempotencyKey: "seat:q1",
            payload: EventCodec.payload(of: .seat(claim)), environment: "Sandbox")
        ], to: "seats:Sandbox:1000", indexing: nil)
      #expect(
        try await storage.index.seatStreams(holdingClaims: ["ABC-1", "other"])
          == ["seats:Sandbox:1000"])
      #expect(try await storage.index.seatStreams(holdingClaims: ["other"]).isEmpty)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aDownloadIsHeldByTheAccountsItWasSeenWith(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let named = DownloadSighting(
        environment: "Sandbox", appTransactionId: "d1", chain: "1000", token: Self.alice)
      let unnamed = DownloadSighting(
        environment: "Sandbox", appTransactionId: "d1", chain: "2000", token: nil)
      #expect(try await storage.index.note([named]).isEmpty)
      #expect(try await storage.index.note([unnamed]) == [named])
      // A later sighting without a token keeps the token one before it named.
      var again = named
      again.token = nil
      _ = try await storage.index.note([again])
      #expect(Set(try await storage.index.note([again])) == [named, unnamed])
      _ = try await storage.log.append(
        [Self.debit("k1", account: Self.bob)], to: "sub:Sandbox:2000",
        indexing: StreamIndex(keys: [Self.bob], streams: ["sub:Sandbox:2000"]))
      #expect(
        try await storage.index.accounts(holdingDownload: "d1", environment: "Sandbox")
          == [Self.alice, Self.bob])
      #expect(
        try await storage.index.accounts(holdingDownload: "d1", environment: "Production")
          .isEmpty)
    }
  }
}
