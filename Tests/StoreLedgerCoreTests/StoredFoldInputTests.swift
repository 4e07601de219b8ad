import Foundation
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerCore

/// A fold input read from a stored payload's facts alone (what the rebuild folds) carries the
/// same facts as the one made from the whole decoded event, so both fold to the same state.
@Suite struct StoredFoldInputTests {
  typealias F = LedgerFixtures

  /// Text as PostgreSQL writes `jsonb` back (keys sorted by length, then bytes; a space after
  /// each colon and comma), and as JSONEncoder writes it.
  static func storedTexts(of event: LedgerEvent) throws -> [[UInt8]] {
    let value = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(event))
    return [Array(Self.jsonbText(value).utf8), Array(try JSONEncoder().encode(event))]
  }

  static func jsonbText(_ value: JSONValue) -> String {
    switch value {
    case .object(let members):
      let keys = members.keys.sorted { ($0.utf8.count, $0) < ($1.utf8.count, $1) }
      return "{"
        + keys.map { "\(quoted($0)): \(jsonbText(members[$0]!))" }
        .joined(separator: ", ") + "}"
    case .array(let elements): return "[" + elements.map(jsonbText).joined(separator: ", ") + "]"
    case .string(let text): return quoted(text)
    default: return String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }
  }

  static func quoted(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
  }

  static func stored(_ text: [UInt8], key: String?) throws -> FoldInput {
    try text.withUnsafeBytes { try FoldInput(storedPayload: $0, key: key) }
  }

  func expectSameFacts(
    _ actual: FoldInput, _ expected: FoldInput, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(actual.change == expected.change, sourceLocation: sourceLocation)
    #expect(actual.transactionFacts == expected.transactionFacts, sourceLocation: sourceLocation)
    #expect(actual.renewalFacts == expected.renewalFacts, sourceLocation: sourceLocation)
    #expect(actual.reference == expected.reference, sourceLocation: sourceLocation)
    #expect(actual.effectiveDate == expected.effectiveDate, sourceLocation: sourceLocation)
    #expect(actual.forwardedToken == expected.forwardedToken, sourceLocation: sourceLocation)
    #expect(
      !actual.ordersAfter(expected) && !expected.ordersAfter(actual),
      sourceLocation: sourceLocation)
    #expect(actual.body == nil, sourceLocation: sourceLocation)
  }

  @Test func everyGeneratedEventGivesTheFactsOfItsDecodedEvent() throws {
    let events = SyntheticLifecycles.events(customers: 300, seed: 17)
    #expect(events.count > 2_500)
    for event in events {
      for text in try Self.storedTexts(of: event) {
        let decoded = try LedgerEvent(storedPayload: text, recordedAt: nil, key: event.key)
        expectSameFacts(try Self.stored(text, key: event.key), decoded.compiled)
      }
    }
  }

  /// Every field the facts come from set, in every kind of event, with Apple's own models.
  @Test func fullyPopulatedPayloadsGiveTheSameFacts() throws {
    var transaction = try JSONDecoder().decode(
      JWSTransactionDecodedPayload.self,
      from: SharedFixtures.model("signedTransactionWithRevocation.json"))
    transaction.isUpgraded = true
    transaction.revocationPercentage = 50_000
    transaction.revocationType = .refundProrated
    transaction.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    var renewal = try JSONDecoder().decode(
      JWSRenewalInfoDecodedPayload.self, from: SharedFixtures.model("signedRenewalInfo.json"))
    renewal.gracePeriodExpiresDate = F.t(40)
    renewal.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    let apple = try JSONDecoder().decode(
      ResponseBodyV2DecodedPayload.self, from: SharedFixtures.model("signedNotification.json"))
    #expect(transaction.revocationDate != nil && renewal.expirationIntent != nil)
    #expect(apple.data?.signedTransactionInfo != nil)
    let events: [LedgerEvent] = [
      LedgerEvent(
        .notification(
          NotificationReceived(notification: apple, transaction: transaction, renewalInfo: renewal)
        ), key: "n1"),
      F.notification(
        .refundReversed, signed: 3, transaction: transaction, renewal: renewal, status: .revoked),
      F.notification(.didChangeRenewalPref, .downgrade, signed: 4, renewal: renewal),
      F.observed(transaction, forwardedToken: "forwarded-token"),
      F.observed(renewal),
      LedgerEvent(
        .status(
          StatusObserved(
            originalTransactionId: transaction.originalTransactionId!,
            subscriptionGroupIdentifier: "group", status: .billingRetry,
            transaction: transaction, renewalInfo: renewal)), key: "status"),
      F.debit("d1", product: "gems.100", quantity: 3, at: 2),
      LedgerEvent(.notification(NotificationReceived(notification: apple)), key: "jws kept"),
      LedgerEvent(
        .notification(NotificationReceived(notification: ResponseBodyV2DecodedPayload())),
        key: "no data"),
      F.observed(F.transaction("", purchased: 1)),
      F.observed(F.renewal("", signed: 3)),
      F.link("2000000000000001", to: "00000000-0000-4000-8000-000000000009", at: 1),
    ]
    for event in events {
      for text in try Self.storedTexts(of: event) {
        let decoded = try LedgerEvent(storedPayload: text, recordedAt: nil, key: event.key)
        expectSameFacts(try Self.stored(text, key: event.key), decoded.compiled)
      }
    }
  }

  @Test func aLogFoldedFromStoredFactsHasTheDecodedLogsSnapshots() throws {
    let events = SyntheticLifecycles.events(customers: 200, seed: 23)
    let inputs = try events.map { event in
      try Self.stored(Self.storedTexts(of: event)[0], key: event.key)
    }
    let (fromEvents, fromInputs) = (
      LedgerView(LedgerState.fold(events)),
      LedgerView(
        LedgerState.fold(inputs))
    )
    for days in [-30.0, 15, 95, 200, 400, 800] {
      let snapshot = fromEvents.snapshot(at: F.t(days))
      #expect(fromInputs.snapshot(at: F.t(days)) == snapshot)
      #expect(days < 0 || !snapshot.subscriptions.isEmpty)
    }
  }

  /// A member a fact comes from with the wrong type is refused as the whole decode refuses it;
  /// members no fact comes from are not read (the audit and every query decode them).
  @Test func aMalformedFactIsRefusedLikeTheWholeDecode() throws {
    let wrongFact = Array(#"{"transaction": {"transactionId": 5}}"#.utf8)
    #expect(throws: DecodingError.self) {
      try LedgerEvent(storedPayload: wrongFact, recordedAt: nil, key: nil)
    }
    #expect(throws: DecodingError.self) { try Self.stored(wrongFact, key: nil) }
    #expect(throws: DecodingError.self) { try Self.stored(Array("{".utf8), key: nil) }
    let wrongOther = Array(
      #"{"transaction": {"transactionId": "1", "bundleId": 5, "signedDate": 7}}"#.utf8)
    #expect(throws: DecodingError.self) {
      try LedgerEvent(storedPayload: wrongOther, recordedAt: nil, key: nil)
    }
    let input = try Self.stored(wrongOther, key: "k")
    #expect(input.transactionFacts?.transactionId == "1")
    #expect(input.effectiveDate == Timestamp(milliseconds: 7))
  }
}
