import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The promises of the relay queue, the aliases and the console sign-outs, checked against
/// PostgreSQL and memory alike.
@Suite struct RelayQueueConformanceTests {
  static func notification(
    _ key: String, type: String, environment: String?, signed: Bool = true
  ) -> NewEvent {
    NewEvent(
      eventType: EventTypes.notification, idempotencyKey: key,
      payload: Array(#"{"notification":{"notificationType":"\#(type)"}}"#.utf8),
      environment: environment, rawSigned: signed ? "header.\(key).signature" : nil)
  }

  static func target(_ name: String, types: [String]? = nil) -> RelayTarget {
    RelayTarget(
      name: name, url: "https://staging.example/apple?token=secret",
      urlKey: "staging.example/apple", environments: ["Sandbox"], notificationTypes: types,
      createdAt: Date(timeIntervalSince1970: 1_790_000_000), createdBy: "cli")
  }

  @Test(arguments: StorageKind.allCases)
  func aTargetGetsWhatWasAppendedAfterItInFeedOrderOnceAndLeased(_ kind: StorageKind)
    async throws
  {
    try await kind.withStorage { storage in
      let queue = storage.relays
      let log = storage.log
      _ = try await log.append(
        [Self.notification("before", type: "DID_RENEW", environment: "Sandbox")], to: "n:0",
        indexing: nil)
      #expect(try await queue.addRelayTarget(Self.target("staging", types: ["DID_RENEW"])))
      #expect(try await !queue.addRelayTarget(Self.target("staging")))
      #expect(try await queue.relayTargets().map(\.name) == ["staging"])
      let appended: [(String, NewEvent)] = [
        ("n:1", Self.notification("sandbox", type: "DID_RENEW", environment: "Sandbox")),
        ("n:2", Self.notification("production", type: "DID_RENEW", environment: "Production")),
        ("n:3", Self.notification("other-type", type: "SUBSCRIBED", environment: "Sandbox")),
        // Unrouted evidence (no environment) goes to every target of its type.
        ("n:4", Self.notification("unrouted", type: "DID_RENEW", environment: nil)),
        (
          "n:5",
          Self.notification("erased", type: "DID_RENEW", environment: "Sandbox", signed: false)
        ),
        ("d:1", StorageConformanceTests.debit("not-a-notification")),
      ]
      for (stream, event) in appended {
        _ = try await log.append([event], to: stream, indexing: nil)
      }
      #expect(try await queue.queueRelays(to: "staging", limit: 100) == appended.count)
      #expect(try await queue.queueRelays(to: "staging", limit: 100) == 0)

      let claims = try await queue.claimRelays(to: "staging", limit: 10, lease: .seconds(60))
      #expect(claims.map(\.notificationKey) == ["sandbox", "unrouted"])
      #expect(claims.map(\.attempt) == [1, 1])
      #expect(claims.first?.signedPayload == "header.sandbox.signature")
      #expect(claims.first?.streamId == "n:1")
      #expect(claims.first?.notificationType == "DID_RENEW")
      // Leased: another claim gets nothing until the lease runs out or an outcome is recorded.
      #expect(try await queue.claimRelays(to: "staging", limit: 10, lease: .seconds(60)).isEmpty)

      try await queue.recordRelays(
        [
          RelayOutcome(
            notificationKey: "sandbox", state: .delivered, status: 200, error: nil,
            retryAt: nil),
          RelayOutcome(
            notificationKey: "unrouted", state: .pending, status: 503, error: "unavailable",
            retryAt: Date(timeIntervalSince1970: 1_000)),
        ], to: "staging")
      let again = try await queue.claimRelays(to: "staging", limit: 10, lease: .seconds(60))
      #expect(again.map(\.notificationKey) == ["unrouted"])
      #expect(again.map(\.attempt) == [2])
      try await queue.recordRelays(
        [
          RelayOutcome(
            notificationKey: "unrouted", state: .dead, status: 410, error: "gone", retryAt: nil)
        ], to: "staging")

      let counts = try await queue.relayCounts()
      #expect(counts.map(\.target) == ["staging"])
      #expect(
        counts.first.map { [$0.delivered, $0.retrying, $0.waiting, $0.dead] } == [1, 0, 0, 1])
      let dead = try await queue.relayDeliveries(
        to: "staging", state: .dead, after: nil, limit: 10, countTotal: true
      ).rows
      #expect(dead.map(\.notificationKey) == ["unrouted"])
      #expect(dead.first?.lastStatus == 410)
      #expect(dead.first?.lastError == "gone")
      #expect(try await queue.retryDeadRelays(to: "staging") == 1)
      #expect(try await queue.relayCounts().first?.waiting == 1)
      let all = try await queue.relayDeliveries(
        to: "staging", state: nil, after: nil, limit: 10, countTotal: true)
      #expect(all.rows.map(\.notificationKey) == ["unrouted", "sandbox"] && all.total == 2)
      // The page after a row starts below it; the total is counted only when asked.
      let next = try await queue.relayDeliveries(
        to: "staging", state: nil, after: "unrouted", limit: 10, countTotal: false)
      #expect(next.rows.map(\.notificationKey) == ["sandbox"] && next.total == nil)
      #expect(try await queue.pruneRelays(to: "staging", deliveredBefore: .seconds(3600)) == 0)

      #expect(try await queue.removeRelayTarget(named: "staging"))
      #expect(try await !queue.removeRelayTarget(named: "staging"))
      #expect(try await queue.queueRelays(to: "staging", limit: 100) == nil)
      #expect(try await queue.relayTargets().isEmpty)
      #expect(try await queue.relayCounts().isEmpty)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func attemptsAreTheTargetsEventsNewestFirstByNotification(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let stream = RelayTarget.streamId(of: "staging")
      for (index, notification) in ["ASN2:A", "asn2:b", "asn2:a"].enumerated() {
        _ = try await storage.log.append(
          [
            NewEvent(
              eventType: EventTypes.relayAttempted, idempotencyKey: "attempt-\(index)",
              payload: Array(#"{"relayAttempt":{"notification":"\#(notification)"}}"#.utf8))
          ], to: stream, indexing: nil)
      }
      let queue = storage.relays
      let all = try await queue.relayAttempts(
        to: "staging", notification: nil, before: nil, limit: 10, countTotal: true)
      #expect(all.rows.map(\.streamVersion) == [3, 2, 1] && all.total == 3)
      let ofA = try await queue.relayAttempts(
        to: "staging", notification: "asn2:a", before: nil, limit: 10, countTotal: true)
      #expect(ofA.rows.map(\.streamVersion) == [3, 1] && ofA.total == 2)
      // A later page still counts them all: the total is of the list, not of what remains.
      let older = try await queue.relayAttempts(
        to: "staging", notification: nil, before: 3, limit: 1, countTotal: true)
      #expect(older.rows.map(\.streamVersion) == [2] && older.total == 3)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func anAliasNamesOneAccountAndAnAccountHasOneAlias(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let aliases = storage.aliases
      let alice = StorageConformanceTests.alice
      let bob = StorageConformanceTests.bob
      #expect(try await aliases.setAlias("user-1", for: alice, by: "api"))
      #expect(try await !aliases.setAlias("user-1", for: bob, by: "api"))
      #expect(try await aliases.alias(of: bob) == nil)
      #expect(try await aliases.setAlias("user-2", for: alice, by: "api"))
      #expect(try await aliases.alias(of: alice) == "user-2")
      // Replacing alice's alias freed the first one.
      #expect(try await aliases.setAlias("user-1", for: bob, by: "api"))
      let found = try await storage.support.accounts(
        matching: "user-1", environments: ["Sandbox"], consistency: .exact)
      #expect(found.value.map(\.token) == [bob])
      #expect(found.value.map(\.matched) == ["alias"])
      #expect(try await aliases.removeAlias(of: alice) == "user-2")
      #expect(try await aliases.removeAlias(of: alice) == nil)
      #expect(try await aliases.alias(of: alice) == nil)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func aSignedOutSessionIsKnownUntilItWouldHaveExpired(_ kind: StorageKind) async throws {
    try await kind.withStorage { storage in
      let signOuts = storage.signOuts
      let (d1, d2, d3, old) = (
        String(repeating: "1", count: 64), String(repeating: "2", count: 64),
        String(repeating: "3", count: 64), String(repeating: "0", count: 64)
      )
      let later = Date().addingTimeInterval(3600)
      try await signOuts.recordSignOut(digest: d1, expiresAt: later)
      try await signOuts.recordSignOut(digest: d1, expiresAt: later)
      #expect(try await signOuts.isSignedOut(digest: d1))
      #expect(try await !signOuts.isSignedOut(digest: d2))
      // An expired sign-out is pruned by the next one: its token is refused anyway.
      try await signOuts.recordSignOut(digest: old, expiresAt: Date(timeIntervalSince1970: 1_000))
      try await signOuts.recordSignOut(digest: d3, expiresAt: later)
      #expect(try await !signOuts.isSignedOut(digest: old))
      #expect(try await signOuts.isSignedOut(digest: d3))
      // Only a digest is kept, never a token.
      let refused = await #expect(throws: EventStoreError.self) {
        try await signOuts.recordSignOut(digest: "a-session-token", expiresAt: later)
      }
      #expect(refused?.code == .invalidEvent)
      #expect(try await !signOuts.isSignedOut(digest: "a-session-token"))
    }
  }
}
