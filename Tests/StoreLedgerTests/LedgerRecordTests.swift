import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// Verified data → events of the log → back to foldable events, through a real PostgreSQL.
@Suite struct LedgerRecordTests {
  typealias F = LedgerFixtures
  static let pki = try! TestPKI()

  static func verifier() throws -> SignedDataVerifier {
    try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: pki.trustedRoots, bundleId: "com.example.app", environment: .sandbox))
  }

  /// A SUBSCRIBED notification whose transaction carries a field Apple may add one day.
  static func signedNotification() throws -> String {
    var transaction = F.transaction("1000", purchased: 0, expires: 30)
    transaction.environment = .sandbox
    transaction.bundleId = "com.example.app"
    var transactionJSON =
      try JSONSerialization.jsonObject(
        with: JSONEncoder().encode(transaction)) as! [String: Any]
    transactionJSON["futureField"] = "kept"
    let signedTransaction = pki.sign(
      payloadJSON: Array(try JSONSerialization.data(withJSONObject: transactionJSON)))
    var renewal = F.renewal("1000", signed: 0)
    renewal.environment = .sandbox
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = .subscribed
    body.subtype = .initialBuy
    body.notificationUUID = "0f2c5d0e-1111-4222-8333-444455556666"
    body.version = "2.0"
    body.signedDate = F.t(0)
    var data = NotificationData()
    data.bundleId = "com.example.app"
    data.environment = .sandbox
    data.status = .active
    data.signedTransactionInfo = signedTransaction
    data.signedRenewalInfo = try pki.sign(renewal)
    body.data = data
    return try pki.sign(body)
  }

  /// The spliced payload is the same JSON as parsing, replacing and writing it again.
  @Test func splicedNotificationEqualsTheRecomposedOne() async throws {
    let verified = try await Self.verifier().verifyNotification(try Self.signedNotification())
    let record = try LedgerRecord.notification(verified, source: "webhook")
    let spliced = try JSONDecoder().decode(
      JSONValue.self, from: Data(try #require(record.event.claims)))
    let recomposed = try JSONDecoder().decode(
      JSONValue.self, from: Data(try LedgerRecord.recomposedNotificationJSON(verified)))
    #expect(spliced == .object(["notification": recomposed]))
    guard case .object(let notification) = recomposed,
      case .object(let data)? = notification["data"],
      case .object(let transaction)? = data["signedTransactionInfo"],
      case .object = data["signedRenewalInfo"]
    else {
      Issue.record("the nested JWS strings were not replaced by objects")
      return
    }
    #expect(transaction["futureField"] == .string("kept"))
  }

  @Test func transactionPayloadKeepsTheForwardedTokenEscaped() async throws {
    var transaction = F.transaction("1000", purchased: 0, expires: 30)
    transaction.environment = .sandbox
    transaction.bundleId = "com.example.app"
    let verified = try await Self.verifier().verifyTransaction(try Self.pki.sign(transaction))
    let token = "odd \"token\"\n\u{01}"
    let record = try LedgerRecord.transaction(verified, appAccountToken: token, source: "app")
    let json = try JSONDecoder().decode(
      JSONValue.self, from: Data(try #require(record.event.claims)))
    guard case .object(let body) = json else {
      Issue.record("not an object")
      return
    }
    #expect(body["appAccountToken"] == .string(token))
    #expect(
      body["transaction"]
        == (try JSONDecoder().decode(JSONValue.self, from: Data(verified.payloadJSON))))
  }

  @Test func notificationMapsToItsStreamKeyAndPayload() async throws {
    let verified = try await Self.verifier().verifyNotification(try Self.signedNotification())
    let record = try LedgerRecord.notification(verified, source: "webhook")
    #expect(record.streamId == "sub:Sandbox:1000")
    #expect(record.event.idempotencyKey == "asn2:0f2c5d0e-1111-4222-8333-444455556666")
    #expect(record.event.eventType == "appstore.notification.v3")
    #expect(record.event.rawSigned == verified.notification.compactJWS)
    #expect(record.event.appleSignedAt == F.t(0).date)
    let claims = String(decoding: try #require(record.event.claims), as: UTF8.self)
    #expect(claims.contains(#""futureField":"kept""#), "unknown fields are kept in the claims")
    let facts = try EventCodec.body(
      eventType: record.event.eventType, payload: record.event.payload)
    guard case .notification(let notification) = facts else {
      Issue.record("the facts are not a notification's")
      return
    }
    #expect(notification.notificationType == .subscribed && notification.status == .active)
    #expect(notification.transaction?.transactionId == "1000")
    #expect(notification.renewal?.originalTransactionId == "1000")
    #expect(String(decoding: record.event.metadata, as: UTF8.self) == #"{"source":"webhook"}"#)
  }

  @Test func transactionRenewalAndCommandsMapToDesignStreams() async throws {
    var transaction = F.transaction("1001", original: "1000", purchased: 30, expires: 60)
    transaction.environment = .sandbox
    transaction.bundleId = "com.example.app"
    let verified = try await Self.verifier().verifyTransaction(try Self.pki.sign(transaction))
    let record = try LedgerRecord.transaction(
      verified, appAccountToken: "00000000-0000-4000-8000-000000000009", source: "app")
    #expect(record.streamId == "sub:Sandbox:1000")
    #expect(record.event.idempotencyKey == "tx:Sandbox:1001:\(F.t(30).milliseconds)")
    let debit = try LedgerRecord.command(
      .debit(
        ConsumableDebited(
          id: "d1", appAccountToken: "00000000-0000-4000-8000-000000000009", productId: "gems",
          quantity: 5)),
      idempotencyKey: "req-1", source: "api")
    #expect(debit.streamId == "acct:00000000-0000-4000-8000-000000000009")
    #expect(debit.event.idempotencyKey == "debit:req-1")
    #expect(throws: LedgerRecord.MappingError.self) {
      try LedgerRecord.command(
        .renewal(try #require(RenewalInfoFacts(F.renewal("1", signed: 0)))),
        idempotencyKey: "x", source: "api")
    }
  }

  /// A transaction stored before facts held price terms (`appstore.transaction.v2`, the same
  /// facts without them) reads back without terms and audits consistent; the same data stored
  /// today carries its price, currency, offer and environment.
  @Test(.enabled(if: TestDatabase.shouldRun))
  func aRowFromBeforePriceTermsReadsAndAuditsAsItWas() async throws {
    var transaction = F.transaction("1002", purchased: 0, expires: 30)
    transaction.environment = .sandbox
    transaction.bundleId = "com.example.app"
    transaction.price = 9_990
    transaction.currency = "USD"
    let verified = try await Self.verifier().verifyTransaction(try Self.pki.sign(transaction))
    var old = try LedgerRecord.transaction(verified, source: "app")
    guard
      case .transaction(let seen) = try EventCodec.body(
        eventType: old.event.eventType, payload: old.event.payload)
    else { throw CancellationError() }
    #expect(old.event.eventType == "appstore.transaction.v3")
    #expect(seen.transaction.terms?.price == 9_990 && seen.transaction.terms?.currency == "USD")
    old.event.eventType = "appstore.transaction.v2"
    old.event.payload = EventCodec.payload(of: .transaction(seen).withoutTerms())
    let record = old
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let store = EventStore(client: client, logger: TestDatabase.logger)
        _ = try await store.append([record.event], to: record.streamId)
        let stored = try await store.readStream(record.streamId)
        let event = try EventCodec.event(try #require(stored.first))
        guard case .transaction(let read) = event.body else { throw CancellationError() }
        #expect(read.transaction.terms == nil)
        let ledger = try Ledger(
          client: client,
          configuration: LedgerConfiguration(
            bundleId: "com.example.app", environments: [.sandbox],
            trustedRoots: Self.pki.trustedRoots),
          logger: TestDatabase.logger)
        let report = try await LedgerMaintenance(ledger: ledger).audit()
        #expect(report.isConsistent, "\(report.problems)")
        #expect(report.signaturesVerified == 1)
      }
    }
  }

  @Test(.enabled(if: TestDatabase.shouldRun))
  func storedEventsFoldToTheSameAnswer() async throws {
    let verified = try await Self.verifier().verifyNotification(try Self.signedNotification())
    let record = try LedgerRecord.notification(verified, source: "webhook")
    let link = try LedgerRecord.command(
      .link(
        AccountLinked(
          appAccountToken: "00000000-0000-4000-8000-000000000002", originalTransactionId: "1000")),
      idempotencyKey: "acct-2:1000", source: "api")
    try await TestDatabase.withMigrated { database in
      try await database.withEventStore { store in
        _ = try await store.append([record.event], to: record.streamId)
        let again = try await store.append([record.event], to: record.streamId)
        #expect(again.wasDuplicate)
        _ = try await store.append([link.event], to: link.streamId)
        let stored =
          try await store.readStream(record.streamId) + store.readStream(link.streamId)
        let events = try stored.map(EventCodec.event)
        #expect(events.first?.key == record.event.idempotencyKey)
        #expect(events.first?.recordedAt != nil)
        let view = LedgerView(LedgerState.fold(events))
        let subscription = try #require(view.subscription("1000", at: F.t(10)))
        #expect(subscription.status == 1)
        #expect(subscription.appAccountToken == "00000000-0000-4000-8000-000000000001")
        #expect(subscription.appleStatus == 1)
        #expect(
          view.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10)).map(\.active)
            == [true])
      }
    }
  }
}
