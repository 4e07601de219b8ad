import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Operators' grants on PostgreSQL: given an account, when an operator grants "pro" for a
/// month and later ends it, then the entitlement is theirs by rule E7 (source `grant:<id>`),
/// explained by the grant's events (none after the moment asked), told as `grant.started` and
/// `grant.ended`, and the audit is consistent; bad grants change nothing; bulk grants are
/// idempotent by their key.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SupportGrantTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  static let catalog = ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])])
  static let token = "00000000-0000-4000-8000-0000000000a7"

  @Test func aGrantStartsIsExplainedToldAuditedAndEnds() async throws {
    try await H.withLedger(catalog: Self.catalog) { ledger, database in
      let grants = SupportGrants(ledger: ledger)
      let day: TimeInterval = 86_400
      let start = Date().addingTimeInterval(-2 * day)
      let given = try await grants.grant(
        SupportGrantRequest(
          appAccountToken: Self.token.uppercased(), entitlement: "pro", startsAt: start,
          endsAt: start.addingTimeInterval(30 * day), reason: "outage on Nov 20", by: "ops-key"),
        now: start)
      #expect(given.state == .active && given.grantedBy == "ops-key")
      #expect(given.appAccountToken == Self.token)

      // Then: entitled by E7, named as a grant, explained by the grant's event.
      let now = start.addingTimeInterval(day)
      let pro = try #require(
        try await ledger.entitlements(for: Self.token, at: now).first { $0.entitlement == "pro" })
      #expect(pro.active && pro.rule == "E7" && pro.source == "grant:\(given.grantId)")
      #expect(pro.environment == nil, "a grant is not Apple's evidence of any environment")
      let explanation = try await ledger.explain(entitlement: "pro", for: Self.token, at: now)
      let because = try #require(explanation.because.first)
      #expect(because.rule.hasPrefix("E7"))
      #expect(
        because.sentence.contains("ops-key granted pro") && because.sentence.contains("outage"))
      #expect(because.events.map(\.eventType) == [EventTypes.grant])

      // Before it started it was never held.
      let before = try await ledger.explain(
        entitlement: "pro", for: Self.token, at: start.addingTimeInterval(-day))
      #expect(before.answer == "never held")

      // When ended: not entitled from then on; the explanation at a moment before the end does
      // not cite the end.
      let ended = try await grants.end(
        grantId: given.grantId, of: Self.token, reason: "customer asked", by: "support-anna",
        now: start.addingTimeInterval(3 * day))
      #expect(ended.state == .ended && ended.endedBy == "support-anna")
      let later = start.addingTimeInterval(4 * day)
      #expect(
        try await ledger.entitlements(for: Self.token, at: later).first { $0.entitlement == "pro" }?
          .active == false)
      let afterEnd = try await ledger.explain(entitlement: "pro", for: Self.token, at: later)
      #expect(afterEnd.because.first?.events.count == 2)
      let whileHeld = try await ledger.explain(entitlement: "pro", for: Self.token, at: now)
      #expect(whileHeld.because.first?.events.count == 1)
      // Ending again changes nothing.
      let rows = try await database.eventCount()
      _ = try await grants.end(
        grantId: given.grantId, of: Self.token, reason: "again", by: "x", now: later)
      #expect(try await database.eventCount() == rows)

      // The change feed says grant.started, then grant.ended.
      let changes = try await ChangeFeedReader(ledger: ledger).derivedFromLog(
        of: Self.token, through: later)
      let kinds = changes.map(\.change.kind).filter {
        $0 == .grantStarted || $0 == .grantEnded
      }
      #expect(kinds == [.grantStarted, .grantEnded])

      let listed = try await grants.grants(of: Self.token, at: later)
      #expect(listed.map(\.grantId) == [given.grantId] && listed[0].state == .ended)
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent)
      #expect(audit.grantEvents == 2, "the audit names the grant's two events as grants")
    }
  }

  @Test func badGrantsAreRefusedAndChangeNothing() async throws {
    try await H.withLedger(catalog: Self.catalog) { ledger, database in
      try await Self.refusals(ledger, database)
    }
  }

  static func refusals(_ ledger: Ledger, _ database: TestDatabase) async throws {
    do {
      let grants = SupportGrants(ledger: ledger)
      let now = Date()
      func request(_ entitlement: String = "pro", ends: Date? = nil, reason: String = "r")
        -> SupportGrantRequest
      {
        SupportGrantRequest(
          appAccountToken: Self.token, entitlement: entitlement, startsAt: now, endsAt: ends,
          reason: reason, by: "ops")
      }
      let unknown = await #expect(throws: LedgerError.self) {
        try await grants.grant(request("platinum"))
      }
      // A name the catalog does not know is not a conflict with what the ledger holds.
      #expect(unknown?.code == .unknownEntitlement && unknown?.httpStatus == 422)
      #expect(unknown?.message.contains("force") == true)
      let reversed = await #expect(throws: LedgerError.self) {
        try await grants.grant(request(ends: now.addingTimeInterval(-60)))
      }
      #expect(reversed?.message.contains("ends before it starts") == true)
      #expect(reversed?.code == .rangeReversed && reversed?.httpStatus == 422)
      let silent = await #expect(throws: LedgerError.self) {
        try await grants.grant(request(reason: "  "))
      }
      #expect(silent?.code == .invalidRequest)
      let nobody = await #expect(throws: LedgerError.self) {
        try await grants.end(
          grantId: UUID().uuidString, of: Self.token, reason: "r", by: "ops")
      }
      #expect(nobody?.code == .notFound)
      #expect(try await database.eventCount() == 0)

      // Forced, an entitlement the catalog does not know is granted, and says so.
      var forced = request("platinum")
      forced.force = true
      #expect(try await grants.grant(forced).forced)

      // Lengths are counted as the HTTP contract's JSON Schema counts them, in code points:
      // what the contract accepts is granted (500 "é" were once refused as 1,000 bytes).
      var longest = request(
        String(repeating: "é", count: 255), reason: String(repeating: "é", count: 500))
      longest.force = true
      longest.idempotencyKey = String(repeating: "k", count: 255)
      #expect(try await grants.grant(longest).forced)
      for (entitlement, reason) in [
        (String(repeating: "é", count: 256), "r"), ("pro", String(repeating: "é", count: 501)),
      ] {
        var tooLong = request(entitlement, reason: reason)
        tooLong.force = true
        let refused = await #expect(throws: LedgerError.self) {
          try await grants.grant(tooLong)
        }
        #expect(refused?.code == .invalidRequest)
      }
    }
  }

  @Test func aBulkGrantAfterAnOutageGrantsEachAccountOnce() async throws {
    try await H.withLedger(catalog: Self.catalog) { ledger, database in
      let grants = SupportGrants(ledger: ledger)
      let tokens = (1...5).map { F.account(700 + $0) }
      let now = Date()
      let first = try await grants.grant(
        tokens + [tokens[0].uppercased(), "not-a-token"], entitlement: "pro",
        endsAt: now.addingTimeInterval(7 * 86_400), reason: "outage", by: "ops",
        idempotencyKey: "outage-2026-11-20", now: now)
      #expect(first.granted.count == 5 && first.alreadyGranted.isEmpty)
      #expect(first.refused.map(\.appAccountToken) == ["not-a-token"])
      let rows = try await database.eventCount()
      let again = try await grants.grant(
        tokens, entitlement: "pro", endsAt: now.addingTimeInterval(7 * 86_400), reason: "outage",
        by: "ops", idempotencyKey: "outage-2026-11-20", now: now.addingTimeInterval(60))
      #expect(again.granted.isEmpty && again.alreadyGranted.count == 5)
      #expect(try await database.eventCount() == rows)
      #expect(Set(again.alreadyGranted.map(\.grantId)) == Set(first.granted.map(\.grantId)))
      for token in tokens {
        #expect(
          try await ledger.entitlements(for: token).contains {
            $0.entitlement == "pro" && $0.active && $0.rule == "E7"
          })
      }
    }
  }
}
