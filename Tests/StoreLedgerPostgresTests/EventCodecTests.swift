import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerPostgres

/// The codec reads back exactly the facts it wrote, in the text PostgreSQL returns as well as
/// in its own; the upcaster reads rows written before facts (Apple's claims as the payload)
/// as the facts the one mapping makes of those claims.
@Suite struct EventCodecTests {
  typealias F = LedgerFixtures

  /// Text as PostgreSQL writes `jsonb` back (keys sorted by length, then bytes; a space after
  /// each colon and comma).
  static func jsonbText(_ bytes: [UInt8]) throws -> [UInt8] {
    Array(jsonbText(try JSONDecoder().decode(JSONValue.self, from: Data(bytes))).utf8)
  }

  static func jsonbText(_ value: JSONValue) -> String {
    switch value {
    case .object(let members):
      let keys = members.keys.sorted { ($0.utf8.count, $0) < ($1.utf8.count, $1) }
      return "{"
        + keys.map { "\(quoted($0)): \(jsonbText(members[$0]!))" }.joined(separator: ", ") + "}"
    case .array(let elements): return "[" + elements.map(jsonbText).joined(separator: ", ") + "]"
    case .string(let text): return quoted(text)
    default: return String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }
  }

  static func quoted(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
  }

  @Test func everyGeneratedEventReadsBackAsItsFacts() throws {
    let events = SyntheticLifecycles.events(customers: 300, seed: 17)
    #expect(events.count > 2_500)
    for event in events {
      let payload = EventCodec.payload(of: event.body)
      for text in [payload, try Self.jsonbText(payload)] {
        let body = try EventCodec.body(eventType: event.eventType, payload: text)
        #expect(body == event.body)
        #expect(body.eventType == event.eventType)
      }
    }
  }

  /// Every field the facts come from set, in every kind of claims, with Apple's own models:
  /// read as rows written before facts (claims as the payload, `*.v1`), the upcaster's member
  /// reading gives what decoding the claims whole and mapping them gives.
  @Test func claimsUpcastToTheFactsOfTheMapping() throws {
    for claims in try Self.everyKindOfClaims() {
      let json = EventCodec.claims(claims)
      for text in [json, try Self.jsonbText(json)] {
        let decoded = try JSONDecoder().decode(AppleClaims.self, from: Data(text))
        let upcast = try EventCodec.body(eventType: claims.claimsEventType, payload: text)
        #expect(upcast == LedgerEvent.Body(decoded))
        #expect(upcast == LedgerEvent.Body(claims))
      }
    }
  }

  /// Claims without the identifiers a fact needs hold no facts, and such a row is refused with
  /// the codec's typed error rather than read as something else.
  @Test func malformedRowsAreRefusedWithATypedError() throws {
    let unreadable: [(String, String)] = [
      (
        SignedTransactionFacts.eventType, #"{"transaction": {"transaction": {"transactionId": 5}}}"#
      ),
      (SignedTransactionFacts.eventType, #"{"transaction": {}}"#),
      (NotificationFacts.eventType, "{"),
      (NotificationFacts.eventType, #"{"notification": {}, "renewal": {}}"#),
      ("appstore.transaction.v1", #"{"transaction": {"productId": "x"}}"#),
      ("replay.revision.v1", #"{"revision": "r"}"#),
    ]
    for (type, text) in unreadable {
      #expect(throws: EventStoreError.self) {
        try EventCodec.body(eventType: type, payload: Array(text.utf8))
      }
    }
  }

  @Test func aLogReadBackFromItsRowsFoldsToTheSameSnapshots() throws {
    let events = SyntheticLifecycles.events(customers: 200, seed: 23)
    let read = try events.map { event in
      LedgerEvent(
        try EventCodec.body(
          eventType: event.eventType, payload: Self.jsonbText(EventCodec.payload(of: event.body))),
        recordedAt: event.recordedAt, key: event.key)
    }
    let (written, readBack) = (
      LedgerView(LedgerState.fold(events)), LedgerView(LedgerState.fold(read))
    )
    for days in [-30.0, 15, 95, 200, 400, 800] {
      let snapshot = written.snapshot(at: F.t(days))
      #expect(readBack.snapshot(at: F.t(days)) == snapshot)
      #expect(days < 0 || !snapshot.subscriptions.isEmpty)
    }
  }

  static func everyKindOfClaims() throws -> [AppleClaims] {
    var transaction = try JSONDecoder().decode(
      JWSTransactionDecodedPayload.self,
      from: SharedFixtures.model("signedTransactionWithRevocation.json"))
    transaction.isUpgraded = true
    transaction.revocationPercentage = 50_000
    transaction.revocationType = .refundProrated
    transaction.appAccountToken = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
    var renewal = try JSONDecoder().decode(
      JWSRenewalInfoDecodedPayload.self, from: SharedFixtures.model("signedRenewalInfo.json"))
    renewal.gracePeriodExpiresDate = F.t(40)
    renewal.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    let apple = try JSONDecoder().decode(
      ResponseBodyV2DecodedPayload.self, from: SharedFixtures.model("signedNotification.json"))
    #expect(transaction.revocationDate != nil && renewal.expirationIntent != nil)
    #expect(apple.data?.signedTransactionInfo != nil)
    var reversal = apple
    reversal.notificationType = .refundReversed
    reversal.data?.status = .revoked
    return [
      .notification(
        NotificationClaims(notification: apple, transaction: transaction, renewalInfo: renewal)),
      .notification(NotificationClaims(notification: reversal, transaction: transaction)),
      .notification(NotificationClaims(notification: apple)),
      .notification(NotificationClaims(notification: ResponseBodyV2DecodedPayload())),
      .transaction(SignedTransactionClaims(transaction: transaction, appAccountToken: "Forwarded")),
      .transaction(SignedTransactionClaims(transaction: transaction)),
      .renewalInfo(RenewalInfoClaims(renewalInfo: renewal)),
      .status(
        StatusClaims(
          originalTransactionId: transaction.originalTransactionId!,
          subscriptionGroupIdentifier: "group", status: .billingRetry,
          transaction: transaction, renewalInfo: renewal)),
      .status(StatusClaims(originalTransactionId: "1", status: .expired)),
    ]
  }
}
