import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// A verified notification is never refused for being new: unknown types and body objects are
/// stored; one whose app cannot be read is kept as unrouted evidence that grants nothing; one
/// that names another app, or is not Apple's, is still refused and changes nothing.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct NotUnderstoodNotificationTests {
  typealias F = LedgerFixtures
  static let pki = LedgerTests.pki
  static let account = F.account(1)

  /// A notification signed by `pki` whose JSON is exactly `members` (any body, known or not).
  static func signed(_ members: [String: Any], pki: TestPKI = pki) throws -> String {
    pki.sign(payloadJSON: Array(try JSONSerialization.data(withJSONObject: members)))
  }

  static func envelope(_ type: String, uuid: String, body: [String: Any]) -> [String: Any] {
    var members: [String: Any] = [
      "notificationType": type, "notificationUUID": uuid, "version": "2.0",
      "signedDate": F.t(1).milliseconds,
    ]
    members.merge(body) { _, new in new }
    return members
  }

  /// `UNCLAIM_SEATS` as Apple's readable documentation shows it: only `unclaimSeatIds`.
  static func unclaimSeats(uuid: String) throws -> String {
    try signed(
      envelope(
        "UNCLAIM_SEATS", uuid: uuid,
        body: ["unclaimInfo": ["unclaimSeatIds": ["7d7a4a36-3b6f-4c1e-9d44-0c6c2b3f8a10"]]]))
  }

  /// A type and body object no release knows; the body names nothing of the app.
  static func invented(uuid: String, identity: [String: Any] = [:], pki: TestPKI = pki) throws
    -> String
  {
    var body: [String: Any] = ["widgetCount": 3, "widgets": ["a", "b"]]
    body.merge(identity) { _, new in new }
    return try signed(
      envelope("WIDGETS_RECALLED", uuid: uuid, body: ["widgetInfo": body]), pki: pki)
  }

  @Test func aNotificationNamingNoAppIsKeptAsUnroutedEvidence() async throws {
    try await SimulatedAppStoreHarness.withLedger { ledger, _ in
      let purchase = try SignedFixtures(pki: Self.pki).transaction(
        F.transaction("5000", purchased: 0, expires: 30, token: Self.account))
      _ = try await ledger.ingest(signedTransaction: purchase)
      let before = try await ledger.entitlements(for: Self.account, at: F.t(2).date)

      let unclaim = try await ledger.ingest(notification: try Self.unclaimSeats(uuid: "u-1"))
      #expect(unclaim.unrouted && !unclaim.wasDuplicate)
      #expect(unclaim.streamId == "unrouted:u-1")
      #expect(unclaim.notificationType == "UNCLAIM_SEATS")
      let future = try await ledger.ingest(notification: try Self.invented(uuid: "u-2"))
      #expect(future.unrouted && future.streamId == "unrouted:u-2")
      let again = try await ledger.ingest(notification: try Self.invented(uuid: "u-2"))
      #expect(again.wasDuplicate && again.streamVersion == future.streamVersion)

      // Grants and revokes nothing: the account answers as before, its history is unchanged.
      #expect(try await ledger.entitlements(for: Self.account, at: F.t(2).date) == before)
      #expect(try await ledger.events(for: Self.account).count == 1)

      let listed = try await SupportQueries(ledger: ledger).notUnderstood()
      #expect(listed.map(\.notificationUUID) == ["u-2", "u-1"])
      #expect(listed.map(\.notificationType) == ["WIDGETS_RECALLED", "UNCLAIM_SEATS"])
      #expect(listed.map(\.bodyObjects) == [["widgetInfo"], ["unclaimInfo"]])
      #expect(listed.allSatisfy { $0.isUnrouted && $0.routedTo == nil })
      #expect(listed.first?.signedDate == F.t(1))

      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
      #expect(audit.signaturesVerified == 3)
    }
  }

  @Test func aNewTypeWhoseBodyNamesTheAppIsRoutedAndChangesNothing() async throws {
    try await SimulatedAppStoreHarness.withLedger { ledger, _ in
      let stored = try await ledger.ingest(
        notification: try Self.invented(
          uuid: "r-1", identity: ["bundleId": "com.example.app", "environment": "Sandbox"]))
      #expect(!stored.unrouted && !stored.understood)
      #expect(stored.streamId == "app:Sandbox:com.example.app")
      #expect(stored.idempotencyKey == "asn2:r-1")
      let listed = try await SupportQueries(ledger: ledger).notUnderstood()
      #expect(listed.map(\.notificationUUID) == ["r-1"])
      #expect(listed.first?.isUnrouted == false)
      #expect(listed.first?.streamId == "app:Sandbox:com.example.app")
      // A known type with a known body is not listed.
      let test = try Self.signed(
        Self.envelope(
          "TEST", uuid: "r-2",
          body: ["data": ["bundleId": "com.example.app", "environment": "Sandbox"]]))
      #expect(try await ledger.ingest(notification: test).understood)
      #expect(try await SupportQueries(ledger: ledger).notUnderstood().count == 1)
      // A known type carrying a body object Apple added later is listed, named by that body;
      // the list reads the notifications' distinct shapes, and this is a new one.
      let extended = try Self.signed(
        Self.envelope(
          "TEST", uuid: "r-3",
          body: [
            "data": ["bundleId": "com.example.app", "environment": "Sandbox"],
            "gizmoInfo": ["gizmos": 2],
          ]))
      _ = try await ledger.ingest(notification: extended)
      let withBody = try await SupportQueries(ledger: ledger).notUnderstoodPage(limit: 10)
      #expect(withBody.rows.map(\.notificationUUID) == ["r-3", "r-1"] && withBody.total == 2)
      #expect(withBody.rows.first?.bodyObjects == ["data", "gizmoInfo"])
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
    }
  }

  @Test func whatIsNotThisAppsOrNotApplesIsStillRefusedAndStoresNothing() async throws {
    try await SimulatedAppStoreHarness.withLedger { ledger, database in
      let cases: [(String, String, String)] = [
        ("forged", try Self.invented(uuid: "x-1", pki: try TestPKI()), "verification_failed"),
        (
          "another app's bundle in an unknown body",
          try Self.invented(uuid: "x-2", identity: ["bundleId": "com.example.other"]),
          "bundle_id_mismatch"
        ),
        (
          "an environment this ledger does not serve",
          try Self.invented(uuid: "x-3", identity: ["environment": "Production"]),
          "environment_mismatch"
        ),
        (
          "another app's bundle and environment",
          try Self.invented(
            uuid: "x-4", identity: ["bundleId": "com.example.other", "environment": "Sandbox"]),
          "bundle_id_mismatch"
        ),
      ]
      for (name, payload, code) in cases {
        do {
          _ = try await ledger.ingest(notification: payload)
          Issue.record("\(name) was accepted")
        } catch let error as LedgerError {
          #expect(error.code == .verificationFailed, "\(name)")
          #expect(
            error.verificationCode == code || code == "verification_failed", "\(name): \(error)")
        }
      }
      let count = try await database.asWriter { client in
        try await LogStatements.counts(on: client, logger: TestDatabase.logger).events
      }
      #expect(count == 0)
    }
  }

  @Test func reexaminationRoutesEvidenceALaterReleaseCanRead() async throws {
    try await SimulatedAppStoreHarness.withLedger { ledger, database in
      // An earlier release could not read this notification's app and kept it as evidence;
      // this release reads its `data` body and routes it.
      let signed = try SignedFixtures(pki: Self.pki).notification(
        .subscribed, .initialBuy, uuid: "e-1",
        transaction: F.transaction("6000", purchased: 0, expires: 30, token: Self.account))
      let unverified = try UnverifiedJWS<ResponseBodyV2DecodedPayload>(signed)
      let evidence = try LedgerRecord.unrouted(
        try await Self.verifier().verifyUnroutable(unverified), source: "webhook")
      try await database.withEventStore { store in
        _ = try await store.append([evidence.event], to: evidence.streamId)
      }
      #expect(try await ledger.entitlements(for: Self.account, at: F.t(2).date).isEmpty)
      #expect(try await SupportQueries(ledger: ledger).notUnderstood().map(\.routedTo) == [nil])

      let first = try await LedgerMaintenance(ledger: ledger).reexamineUnrouted()
      #expect(
        first
          == LedgerMaintenance.Reexamination(examined: 1, routed: 1, stillUnrouted: 0, refused: 0))
      #expect(
        try await ledger.entitlements(for: Self.account, at: F.t(2).date).map(\.entitlement)
          == ["pro.monthly"])
      #expect(
        try await SupportQueries(ledger: ledger).notUnderstood().map(\.routedTo) == [
          "sub:Sandbox:6000"
        ])
      let second = try await LedgerMaintenance(ledger: ledger).reexamineUnrouted()
      #expect(second.examined == 0)
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
    }
  }

  static func verifier() throws -> SignedDataVerifier {
    try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: pki.trustedRoots, bundleId: "com.example.app"))
  }
}
